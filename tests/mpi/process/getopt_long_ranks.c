/* getopt_long_ranks.c - every rank parses its options with getopt_long while the ranks take turns
 * (libc_getopt.cpp: each rank has its own getopt state).
 *
 * Each rank calls MPI_Init and MPI_Barrier, then parses its argv with getopt_long, calling MPI_Barrier after
 * each option it handled: with several ranks in a native process, every rank's getopt calls interleave with
 * the others' (CoMD parses after MPI_Init; glibc keeps one scan per process). Then it parses an argv of its
 * own, one that differs from rank to rank, from a fresh scan (optind = 0). Every rank makes the same number of
 * MPI_Barrier calls whatever it parsed (kCalls), so a wrong parse shows in the output rather than as a
 * deadlock. Rank 0 prints what every rank parsed (rank_log.h); each rank checks its result against the
 * expected one, and the program exits 1 if any rank parsed something else.
 *
 *   getopt_long_ranks in1 -vx --size 64 in2 -nbeta -q --level=3 -vv --lev --dry-run -n gamma -- -z last
 */
#include <getopt.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rank_log.h"

enum { kCalls = 64 };  /* MPI_Barrier calls per phase, on every rank */

static int dry_run = 0;

static const struct option kLongs[] = {
    {"size", required_argument, NULL, 's'},   {"verbose", no_argument, NULL, 'v'},
    {"level", optional_argument, NULL, 'l'},  {"name", required_argument, NULL, 'n'},
    {"dry-run", no_argument, &dry_run, 1},    {"rank", required_argument, NULL, 'k'},
    {NULL, 0, NULL, 0},
};

/* Parses argv with getopt_long into `out` ("v x s=64 ... | operands"); an MPI_Barrier after each option. */
static void parse(int argc, char** argv, char* out, size_t cap) {
  size_t len = 0;
  int c, index = -1, barriers = 0;
  out[0] = '\0';
#define ADD(...) len += (size_t)snprintf(out + len, len < cap ? cap - len : 0, __VA_ARGS__)
  while ((c = getopt_long(argc, argv, "s:vxl::n:k:", kLongs, &index)) != -1) {
    switch (c) {
      case 0: ADD("flag:%s=%d ", kLongs[index].name, *kLongs[index].flag); break;
      case '?': ADD("?%c ", optopt); break;
      case 'v': case 'x': ADD("%c ", c); break;
      default:
        if (optarg) ADD("%c=%s ", c, optarg);
        else ADD("%c ", c);
        break;
    }
    /* the other ranks of this native process parse in the meantime */
    if (barriers++ < kCalls) MPI_Barrier(MPI_COMM_WORLD);
  }
  ADD("|");
  for (int i = optind; i < argc; ++i) ADD(" %s", argv[i]);
#undef ADD
  for (; barriers < kCalls; ++barriers) MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char** argv) {
  opterr = 0;  /* '?' comes back with optopt, nothing on stderr */
  MPI_Init(&argc, &argv);
  int me = 0, np = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  MPI_Barrier(MPI_COMM_WORLD);

  Log lg = {.len = 0};
  char got[512], want[512];
  parse(argc, argv, got, sizeof got);
  const int ok_argv = !strcmp(got, "v x s=64 n=beta ?q l=3 v v l flag:dry-run=1 n=gamma | in1 in2 -z last");
  say(&lg, "argv: %s: %s\n", got, ok_argv ? "ok" : "WRONG");

  /* An argv of the rank's own, parsed from a fresh scan: rank r has r clustered -v options. */
  char a0[] = "prog", a1[] = "op", a2[] = "--rank", a3[16], a4[16] = "-";
  snprintf(a3, sizeof a3, "%d", me);
  for (int i = 0; i < me && i < 12; ++i) strcat(a4, "v");
  char* own[] = {a0, a1, a2, a3, me > 0 ? a4 : NULL, NULL};
  optind = 0;
  parse(me > 0 ? 5 : 4, own, got, sizeof got);
  int len = snprintf(want, sizeof want, "k=%d ", me);
  for (int i = 0; i < me && i < 12; ++i) len += snprintf(want + len, sizeof want - (size_t)len, "v ");
  snprintf(want + len, sizeof want - (size_t)len, "| op");
  const int ok_own = !strcmp(got, want);
  say(&lg, "own:  %s: %s\n", got, ok_own ? "ok" : "WRONG");

  print_all(&lg, me, np);
  int bad = !ok_argv || !ok_own, any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  MPI_Finalize();
  return any;
}
