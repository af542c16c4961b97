/* priv_libauto.c - calls a library that calls MPI and keeps state (priv_libmpi.c), rank + 1 times with
 * barriers in between so that the ranks of a native process interleave. Each rank must see only its own
 * state: the library's cached rank and call count. With the library shared (-xsim-privatize-libs none)
 * the ranks see the first caller's rank: the program says FAILED on stderr and exits 1. */
#include <mpi.h>
#include <stdio.h>

int priv_libmpi_step(void);

int main(int argc, char** argv) {
  int rank, size, errors = 0, total = 0, last = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int k = 0; k <= rank; ++k) {
    last = priv_libmpi_step();
    MPI_Barrier(MPI_COMM_WORLD);
  }
  for (int k = rank + 1; k < size; ++k) MPI_Barrier(MPI_COMM_WORLD);
  if (last != rank * 1000 + rank + 1) ++errors;
  MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    if (total == 0)
      printf("priv_libauto: %d ranks, the MPI-calling library's state per rank ok\n", size);
    else
      fprintf(stderr, "priv_libauto: FAILED: %d ranks saw another rank's library state\n", total);
  }
  MPI_Finalize();
  return total != 0;
}
