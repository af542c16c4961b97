/* Load imbalance for the statistics' waiting time (tests/mpi/observe.py wait): rank 0 computes 1 ms of
 * virtual time (xsim_compute) and then sends 4 bytes to rank 1, which waits in MPI_Recv from the start. */
#include <mpi.h>
#include <stdio.h>

#include "xsim.h"

int main(int argc, char** argv) {
  int me, v = 42;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (me == 0) {
    xsim_compute(0.001);
    MPI_Send(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
  } else if (me == 1) {
    MPI_Recv(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (v != 42) printf("FAILED: got %d\n", v);
  }
  MPI_Finalize();
  return 0;
}
