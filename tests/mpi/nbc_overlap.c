/* nbc_overlap.c - the overlap loop of OSU's non-blocking collective benchmarks under the processor model
 * none: each iteration starts an MPI_Iallreduce, "computes" by spinning on MPI_Wtime until 200 us have
 * passed (OSU's do_compute_cpu: no MPI call inside, so the clock stands still until the poll rule of
 * Engine::read_clock moves it), then waits. With the rule recognising the poll after 256 reads the loop
 * runs in milliseconds of host time. Each iteration takes 250.238 us of virtual time: the allreduce (2
 * rounds of 50.064 us on 4 ranks of the ethernet star) progresses only inside MPI calls, as in MPICH
 * without a progress thread, so its first round goes out at the start and its second only in MPI_Wait,
 * after the 200 us of computation. Rank 0 prints every rank's result check and virtual time (rank_log.h).
 *
 *   nbc_overlap [iterations]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "rank_log.h"

static void compute_for(double seconds) {
  const double t0 = MPI_Wtime();
  while (MPI_Wtime() - t0 < seconds) {
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, np = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const int iters = argc > 1 ? atoi(argv[1]) : 10;
  Log lg = {.len = 0};
  int bad = 0;
  const double start = MPI_Wtime();
  for (int i = 0; i < iters; ++i) {
    double mine = me + i, sum = 0;
    MPI_Request rq;
    MPI_Iallreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rq);
    compute_for(200e-6);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    if (sum != np * (np - 1) / 2.0 + (double)np * i) bad = 1;
  }
  say(&lg, "%d iterations %s, %.9f s each\n", iters, bad ? "WRONG" : "ok", (MPI_Wtime() - start) / iters);
  print_all(&lg, me, np);
  MPI_Finalize();
  return bad;
}
