/* A polling benchmark (issue "Engine throughput on real traffic", polling): every rank posts a receive from
 * its left neighbour, sends to its right one, and polls the receive with MPI_Test until it completes, as
 * graph and task-based codes wait; ITER rounds, with WORK seconds of xsim_compute between rounds (rank r
 * computes (1 + r % 7) x WORK, so that arrivals are spread out and polls really find nothing).
 * Rank 0 prints the virtual time and the polls made. Usage: poll_loop ITER [WORK_SECONDS] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <xsim.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, np = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const int iter = argc > 1 ? atoi(argv[1]) : 100;
  const double work = argc > 2 ? atof(argv[2]) : 1e-5;
  const int left = (me + np - 1) % np, right = (me + 1) % np;
  long long polls = 0;
  double token = me;
  const double t0 = MPI_Wtime();
  for (int i = 0; i < iter; ++i) {
    xsim_compute(work * (1 + me % 7));
    double in = 0;
    MPI_Request rr, sr;
    MPI_Irecv(&in, 1, MPI_DOUBLE, left, i, MPI_COMM_WORLD, &rr);
    MPI_Isend(&token, 1, MPI_DOUBLE, right, i, MPI_COMM_WORLD, &sr);
    int done = 0;
    while (!done) {
      MPI_Test(&rr, &done, MPI_STATUS_IGNORE);
      ++polls;
    }
    MPI_Wait(&sr, MPI_STATUS_IGNORE);
    token = in + 1;
  }
  const double t = MPI_Wtime() - t0;
  long long all = 0;
  MPI_Reduce(&polls, &all, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  double tmax = 0;
  MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (me == 0) printf("poll_loop: %d ranks, %d rounds: %.9f s virtual, %lld polls (%.1f per message)\n", np, iter, tmax, all,
                      (double)all / ((double)np * iter));
  MPI_Finalize();
  return 0;
}
