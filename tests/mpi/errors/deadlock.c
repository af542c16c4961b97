/* A deliberate deadlock: ranks 0 and 1 both receive first. xsim must report it (each blocked rank's
 * call, peer, tag and communicator) and exit non-zero instead of hanging. Ranks >= 2 finish normally.
 *   deadlock barrier | allreduce: rank 0 waits for a message from rank 1 that never comes while the others
 *   enter the collective, which rank 0 never joins: every rank is reported blocked. */
#include <mpi.h>
#include <string.h>

int main(int argc, char** argv) {
  int me, x = 0, y = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (argc > 1) {
    if (me == 0) MPI_Recv(&x, 1, MPI_INT, 1, 44, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else if (strcmp(argv[1], "barrier") == 0) MPI_Barrier(MPI_COMM_WORLD);
    else MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
  }
  if (me == 0) MPI_Recv(&x, 1, MPI_INT, 1, 42, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (me == 1) MPI_Recv(&x, 1, MPI_INT, 0, 43, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Finalize();
  return 0;
}
