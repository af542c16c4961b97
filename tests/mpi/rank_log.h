// Per-rank output for the MPI test programs: each rank appends lines to its Log, and print_all gathers
// every rank's lines to rank 0, which prints them in rank order ("rNN: line"), so the output does not
// depend on how the launcher interleaves the native processes. Header-only, for tests/mpi/*.c.
// RANK_LOG_BYTES (default 4096) is each rank's buffer and the size of the gather; a program may define it
// before the include (its expected virtual times depend on the gather's size).
#pragma once
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef RANK_LOG_BYTES
#define RANK_LOG_BYTES 4096
#endif

typedef struct {
  char buf[RANK_LOG_BYTES];
  int len;
} Log;

static void say(Log* lg, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(lg->buf + lg->len, sizeof lg->buf - (size_t)lg->len, fmt, ap);
  va_end(ap);
  if (n > 0) lg->len += n;
  if (lg->len >= (int)sizeof lg->buf) lg->len = (int)sizeof lg->buf - 1;
}

static void print_all(Log* lg, int me, int np) {
  char* all = me == 0 ? malloc(sizeof lg->buf * (size_t)np) : NULL;
  MPI_Gather(lg->buf, (int)sizeof lg->buf, MPI_CHAR, all, (int)sizeof lg->buf, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (me == 0) {
    for (int r = 0; r < np; ++r) {
      char* b = all + sizeof lg->buf * (size_t)r;
      char* line = b;
      for (char* c = b; *c; ++c)
        if (*c == '\n') {
          printf("r%02d: %.*s\n", r, (int)(c - line), line);
          line = c + 1;
        }
    }
    free(all);
  }
}
