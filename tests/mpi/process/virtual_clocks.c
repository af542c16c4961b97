/* virtual_clocks.c - the application's own clocks under xsim (libc_clocks.cpp, docs/virtual-clocks.md).
 *
 *   virtual_clocks virtual   (-xsim-virtual-clocks on, the default) every rank reads clock_gettime
 *       (CLOCK_MONOTONIC, CLOCK_REALTIME), gettimeofday and MPI_Wtime, charges 0.25 s + rank x 1.5 ms of
 *       computation (xsim_compute), passes a message around a ring, and reads them again: the monotonic
 *       clock must equal MPI_Wtime to the nanosecond, the realtime clock and gettimeofday must move by the
 *       same amount (gettimeofday to the microsecond) and start at xsim's fixed date, 2025-01-01. A thread of rank 0's own
 *       reads the host's monotonic clock (bracketed by direct system calls). Rank-ordered output with the
 *       virtual times, the same for any number of native processes.
 *   virtual_clocks host      (-xsim-virtual-clocks off) the same charge must not show on the clocks: the
 *       monotonic clock moves by less than 0.2 s of host time while MPI_Wtime moves by more than 0.25 s.
 * Built with XSIM_PLAIN (no xsim header, no xsim_compute) it is the unmodified binary that LD_PRELOAD
 * starts under xsim. Exits 1 on a failed check.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "rank_log.h"
#ifndef XSIM_PLAIN
#include "xsim.h"
#endif

static int64_t ns_of(const struct timespec* t) { return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec; }

static int64_t host_ns(clockid_t c) { /* the kernel's clock, past any interposer */
  struct timespec t;
  syscall(SYS_clock_gettime, c, &t);
  return ns_of(&t);
}

typedef struct {
  int64_t before, read, after;
} ThreadRead;

static void* read_in_thread(void* arg) {
  ThreadRead* r = arg;
  struct timespec t;
  r->before = host_ns(CLOCK_MONOTONIC);
  clock_gettime(CLOCK_MONOTONIC, &t);
  r->after = host_ns(CLOCK_MONOTONIC);
  r->read = ns_of(&t);
  return NULL;
}

typedef struct {
  int64_t mono, real;
  int64_t tod_us;
  double wtime;
} Reading;

static Reading reading(void) {
  Reading r;
  struct timespec m, t;
  struct timeval tv;
  clock_gettime(CLOCK_MONOTONIC, &m);
  clock_gettime(CLOCK_REALTIME, &t);
  gettimeofday(&tv, NULL);
  r.wtime = MPI_Wtime();
  r.mono = ns_of(&m);
  r.real = ns_of(&t);
  r.tod_us = (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
  return r;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, np = 0, failed = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const int virtual_mode = argc > 1 && !strcmp(argv[1], "virtual");
  Log lg = {.len = 0};

  Reading a = reading();
#ifndef XSIM_PLAIN
  xsim_compute(0.25 + me * 1.5e-3);
#endif
  int token = me, got = -1;
  MPI_Sendrecv(&token, 1, MPI_INT, (me + 1) % np, 0, &got, 1, MPI_INT, (me + np - 1) % np, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  Reading b = reading();

  const int64_t dw = (int64_t)((b.wtime - a.wtime) * 1e9 + 0.5);
  if (virtual_mode) {
    const int64_t wa = (int64_t)(a.wtime * 1e9 + 0.5), wb = (int64_t)(b.wtime * 1e9 + 0.5);
    const int same = a.mono == wa && b.mono == wb;
    const int real_same = b.real - a.real == b.mono - a.mono;
    const int tod_same = b.tod_us - a.tod_us == b.real / 1000 - a.real / 1000;
    const int date = a.real == 1735689600LL * 1000000000; /* 2025-01-01 00:00:00 UTC, at virtual time 0 */
    say(&lg, "monotonic %.9f -> %.9f s, MPI_Wtime %s; realtime moved %s, gettimeofday %s; 2025-01-01: %s\n",
        a.mono * 1e-9, b.mono * 1e-9, same ? "the same" : "DIFFERENT", real_same ? "as much" : "DIFFERENTLY",
        tod_same ? "as much" : "DIFFERENTLY", date ? "yes" : "NO");
    failed = !same || !real_same || !tod_same || !date;
    if (me == 0) {
      ThreadRead tr;
      pthread_t th;
      pthread_create(&th, NULL, read_in_thread, &tr);
      pthread_join(th, NULL);
      const int host = tr.before <= tr.read && tr.read <= tr.after;
      say(&lg, "another thread reads %s\n", host ? "the host's clock" : "NOT the host's clock");
      failed |= !host;
    }
  } else {
    const int64_t dm = b.mono - a.mono;
    const int host = dm < 200000000 && dw > 250000000;
    say(&lg, "MPI_Wtime moved %s 0.25 s, monotonic %s\n", dw > 250000000 ? "more than" : "NOT more than",
        host ? "by host time" : "by virtual time (NOT host)");
    failed = !host;
  }
  print_all(&lg, me, np);
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  MPI_Finalize();
  return any;
}
