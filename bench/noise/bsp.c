/* bsp.c: a bulk-synchronous loop for the noise study (issue 36, docs/noise.md "Study"): ITER iterations of
 * WORK_US microseconds of computation charged with xsim_compute, each followed by an MPI_Allreduce of one
 * double. Rank 0 prints the virtual time per iteration (MPI_Wtime difference / ITER) in seconds.
 *   bsp [ITER [WORK_US]]   (defaults 200 and 100) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <xsim.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iter = argc > 1 ? atoi(argv[1]) : 200;
  const double work = (argc > 2 ? atof(argv[2]) : 100.0) * 1e-6;
  double x = 1.0, sum = 0.0;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int i = 0; i < iter; ++i) {
    xsim_compute(work);
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  const double t1 = MPI_Wtime();
  if (rank == 0) printf("bsp ranks %d iter %d work %.9f per_iter %.9f sum %.0f\n", size, iter, work, (t1 - t0) / iter, sum);
  MPI_Finalize();
  return 0;
}
