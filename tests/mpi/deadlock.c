/* A deliberate deadlock: ranks 0 and 1 both receive first. xsim must report it (each blocked rank's
 * call, peer, tag and communicator) and exit non-zero instead of hanging. Ranks >= 2 finish normally. */
#include <mpi.h>

int main(int argc, char** argv) {
  int me, x = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (me == 0) MPI_Recv(&x, 1, MPI_INT, 1, 42, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (me == 1) MPI_Recv(&x, 1, MPI_INT, 0, 43, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Finalize();
  return 0;
}
