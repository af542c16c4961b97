/* getopt_ranks.c - every rank parses its options with getopt (libc_getopt.cpp: a scan of its own per rank).
 *
 * The program never names optind, so getopt's position stays in libc's own variable, which the ranks of
 * a native process share: without a scan of its own per rank, every rank after the first found no options.
 * Each rank parses "-n N -v FILE", checks that it got the values and the operand, and reports them in rank
 * order (rank_log.h); all ranks must agree, for any number of native processes. Exits 1 if a rank
 * parsed something else.
 *
 *   getopt_ranks -n 7 -v FILE
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rank_log.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, np = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  int n = -1, verbose = 0, c;
  while ((c = getopt(argc, argv, "n:v")) != -1) {
    if (c == 'n') n = atoi(optarg);
    else if (c == 'v') verbose = 1;
  }
  /* the operand: the last argument that is not an option or an option's value */
  const char* operand = argc > 1 && strcmp(argv[argc - 1], "-v") && strcmp(argv[argc - 2], "-n") ? argv[argc - 1] : "";
  Log lg = {.len = 0};
  const int ok = n == 7 && verbose && !strcmp(operand, "FILE");
  say(&lg, "n %d, verbose %d, operand %s: %s\n", n, verbose, operand, ok ? "ok" : "WRONG");
  print_all(&lg, me, np);
  int bad = !ok, any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  MPI_Finalize();
  return any;
}
