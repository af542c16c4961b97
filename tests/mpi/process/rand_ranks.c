/* rand_ranks.c - every rank draws from its own libc generator (libc_random.cpp).
 *
 * Each rank seeds srand(100 + rank) and draws 4 numbers with rand(), one per round with a barrier between
 * rounds (so that the ranks of a native process interleave), then srandom(7 + rank) and 2 numbers with
 * random(), then switches to a 64-byte state of its own with initstate(3 + rank) and draws 2 more; then
 * srand48(11 + rank) and 2 rounds of drand48 and lrand48, and one erand48 on a state of its own. It
 * compares every number with the same calls on a private generator (glibc's random_r & co.): a process of
 * its own would draw exactly these. Rank-ordered output (rank_log.h), the same for any number of native
 * processes; exits 1 on a mismatch.
 */
#define _DEFAULT_SOURCE
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rank_log.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, np = 0, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  Log lg = {.len = 0};

  struct random_data ref;
  char ref_state[128], ref_small[64];
  memset(&ref, 0, sizeof ref);
  initstate_r(1, ref_state, sizeof ref_state, &ref);
  int32_t want = 0;

  srand(100u + (unsigned)me);
  srandom_r(100u + (unsigned)me, &ref);
  say(&lg, "rand:");
  for (int i = 0; i < 4; ++i) {
    const int got = rand();
    random_r(&ref, &want);
    bad |= got != want;
    say(&lg, " %d", got);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  srandom(7u + (unsigned)me);
  srandom_r(7u + (unsigned)me, &ref);
  say(&lg, "; random:");
  for (int i = 0; i < 2; ++i) {
    const long got = random();
    random_r(&ref, &want);
    bad |= got != want;
    say(&lg, " %ld", got);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  static char small[64];  /* static: privatized per rank, like the application's own state would be */
  initstate(3u + (unsigned)me, small, sizeof small);
  initstate_r(3u + (unsigned)me, ref_small, sizeof ref_small, &ref);
  say(&lg, "; initstate:");
  for (int i = 0; i < 2; ++i) {
    const long got = random();
    random_r(&ref, &want);
    bad |= got != want;
    say(&lg, " %ld", got);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  /* the drand48 family: its own generator, and erand48 on a state of the caller's */
  struct drand48_data ref48;
  memset(&ref48, 0, sizeof ref48);
  srand48(11 + me);
  srand48_r(11 + me, &ref48);
  say(&lg, "; drand48:");
  for (int i = 0; i < 2; ++i) {
    const double got = drand48();
    double want48 = 0;
    drand48_r(&ref48, &want48);
    long lgot = lrand48(), lwant = 0;
    lrand48_r(&ref48, &lwant);
    bad |= got != want48 || lgot != lwant;
    say(&lg, " %.6f %ld", got, lgot);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  unsigned short xa[3] = {1, 2, (unsigned short)me}, xb[3] = {1, 2, (unsigned short)me};
  double e = erand48(xa), ewant = 0;
  erand48_r(xb, &ref48, &ewant);
  bad |= e != ewant || memcmp(xa, xb, sizeof xa) != 0;
  say(&lg, " erand48 %.6f", e);
  say(&lg, "; %s\n", bad ? "DIFFERENT from a process of its own" : "as in a process of its own");
  print_all(&lg, me, np);
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  MPI_Finalize();
  return any;
}
