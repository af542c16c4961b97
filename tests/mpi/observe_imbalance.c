/* Load imbalance for the statistics' waiting time (tests/mpi/observe.py wait): rank 0 computes 1 ms of
 * virtual time (xsim_compute) and then sends 4 bytes to rank 1, which waits in MPI_Recv from the start.
 * A wrong value received says FAILED on stderr and exits 1 (observe.py runs it expecting exit code 0). */
#include <mpi.h>
#include <stdio.h>

#include "xsim.h"

int main(int argc, char** argv) {
  int me, v = 42, failed = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (me == 0) {
    xsim_compute(0.001);
    MPI_Send(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
  } else if (me == 1) {
    v = 0;
    MPI_Recv(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (v != 42) {
      fprintf(stderr, "observe_imbalance: FAILED: rank 1 received %d, expected 42\n", v);
      failed = 1;
    }
  }
  MPI_Finalize();
  return failed;
}
