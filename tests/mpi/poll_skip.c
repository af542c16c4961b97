/* Polling loops under -xsim-poll-skip (docs/virtual-clocks.md, "Polling loops"): the virtual time at which
 * a plain MPI_Iprobe loop sees each message must be the same with the option on as with every poll made.
 * 4 ranks. Rank 1 polls for rank 0's message (tag 7) while rank 2's tag-5 message, which it does not look
 * for, arrives first (a wake-up that finds nothing). Rank 3 polls with MPI_ANY_SOURCE for two messages,
 * then (with "deadlock" as argument) polls for a message no one sends. Prints each rank's times. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "xsim.h"

static double poll_for(int source, int tag, MPI_Comm comm, MPI_Status* st) {
  int flag = 0;
  while (!flag) MPI_Iprobe(source, tag, comm, &flag, st);
  return MPI_Wtime();
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int deadlock = argc > 1 && strcmp(argv[1], "deadlock") == 0;
  double v = rank, got;
  MPI_Status st;
  if (rank == 0) {
    xsim_compute(1e-3);
    MPI_Send(&v, 1, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD);
    xsim_compute(0.37e-3);
    MPI_Send(&v, 1, MPI_DOUBLE, 3, 9, MPI_COMM_WORLD);
  } else if (rank == 2) {
    xsim_compute(0.25e-3);
    MPI_Send(&v, 1, MPI_DOUBLE, 1, 5, MPI_COMM_WORLD);
    xsim_compute(2.0123e-3);
    MPI_Send(&v, 1, MPI_DOUBLE, 3, 9, MPI_COMM_WORLD);
  } else if (rank == 1) {
    double t = poll_for(0, 7, MPI_COMM_WORLD, &st);
    printf("rank 1: tag 7 from %d seen at %.9f\n", st.MPI_SOURCE, t);
    MPI_Recv(&got, 1, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(&got, 1, MPI_DOUBLE, 2, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("rank 1: done at %.9f\n", MPI_Wtime());
  } else if (rank == 3) {
    for (int i = 0; i < 2; ++i) {
      double t = poll_for(MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &st);
      MPI_Recv(&got, 1, MPI_DOUBLE, st.MPI_SOURCE, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      printf("rank 3: message %d from %d seen at %.9f, received at %.9f\n", i, st.MPI_SOURCE, t, MPI_Wtime());
    }
    if (deadlock) poll_for(0, 11, MPI_COMM_WORLD, &st);
  }
  MPI_Finalize();
  return 0;
}
