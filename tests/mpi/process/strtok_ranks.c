/* strtok_ranks.c - each rank splits a line of its own with strtok and makes an MPI call (a barrier, so that
 * the other ranks of its native process run and split theirs) between two tokens, as a program reading an
 * input deck token by token and broadcasting each value would. Every rank must get its own tokens
 * (libc_strtok.cpp); rank 0 prints each rank's tokens (rank_log.h) and the program exits 1 on a wrong one.
 *
 *   strtok_ranks
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "rank_log.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, np = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  Log lg = {.len = 0};
  char line[64];
  snprintf(line, sizeof line, "alpha%d, beta%d;gamma%d", me, me, me);
  int bad = 0, n = 0;
  say(&lg, "tokens:");
  for (char* t = strtok(line, ",; "); t; t = strtok(NULL, ",; ")) {
    char want[16];
    snprintf(want, sizeof want, "%s%d", n == 0 ? "alpha" : n == 1 ? "beta" : "gamma", me);
    bad |= strcmp(t, want) != 0;
    say(&lg, " %s", t);
    ++n;
    MPI_Barrier(MPI_COMM_WORLD);
  }
  for (int k = n; k < 3; ++k) MPI_Barrier(MPI_COMM_WORLD); /* a rank that lost tokens still takes part */
  bad |= n != 3;
  say(&lg, "%s\n", bad ? " WRONG" : " ok");
  print_all(&lg, me, np);
  MPI_Finalize();
  return bad;
}
