// Noise and node speeds (docs/noise.md): each rank prints its virtual time after each step, for exact
// expected times under -xsim-cpu none (tests/mpi/noise.cmake, expected/noise_*.txt).
//   A: 5 ms of computation from time 0;  B1: 0.93 ms more;  B2: 20 us more;
//   C: rank 0 computes 0.985 ms and sends 4 bytes to rank 1, which waits in MPI_Recv meanwhile, then
//      computes 0.5 ms;  Z: a zero charge.
// With -xsim-noise periodic:1ms:10us (a detour at every whole millisecond, 10 us long) and ranks 0 and 1 on
// nodes of their own, rank 0 prints A 0.005060000 (six detours inside), B1 0.005990000 (ends before the
// detour at 6 ms), B2 0.006020000 (across it), C 0.007015000 (across the one at 7 ms); rank 1 waits through
// the detour at 7 ms inside MPI_Recv (not charged: MPI time is not stretched) and prints C 0.007565032.
// Other ranks (the determinism tests) compute and exchange with their neighbours.
#include <mpi.h>
#include <stdio.h>

#include "xsim.h"

static void step(int rank, const char* name) { printf("noise: rank %d %s %.9f\n", rank, name, MPI_Wtime()); }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  xsim_compute(5e-3);
  step(rank, "A");
  xsim_compute(0.93e-3);
  step(rank, "B1");
  xsim_compute(20e-6);
  step(rank, "B2");
  int token = rank;
  if (rank == 0 && size > 1) {
    xsim_compute(0.985e-3);
    MPI_Send(&token, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
  } else if (rank == 1) {
    MPI_Recv(&token, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    xsim_compute(0.5e-3);
  } else if (size > 2) {  // the others: a ring step with computation between
    const int right = (rank + 1) % size < 2 ? 2 : (rank + 1) % size, left = rank - 1 < 2 ? size - 1 : rank - 1;
    xsim_compute(1e-4 * rank);
    MPI_Sendrecv_replace(&token, 1, MPI_INT, right, 3, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    xsim_compute(2e-4);
  }
  step(rank, "C");
  xsim_compute(0);
  step(rank, "Z");
  for (int i = 0; i < 5; ++i) {  // a bulk-synchronous loop: noise amplified by the allreduce
    xsim_compute(3e-4);
    MPI_Allreduce(MPI_IN_PLACE, &token, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  }
  step(rank, "L");
  MPI_Finalize();
  return 0;
}
