/* openmp_ranks.c - OpenMP parallel regions of several ranks in one native process (docs/applications.md
 * "Threads"). OpenMP's runtime keeps the state of the thread that runs a region (its team, its nesting level,
 * its pool of workers) in thread-local storage; the ranks of a native process are fibers of one native
 * thread. Here each rank's master thread makes MPI calls inside a parallel region (MPI_THREAD_FUNNELED), so
 * the other ranks run their own regions meanwhile: every rank must still get its full team (level 1, not a
 * nested region of one thread) and a correct reduction. Exits non-zero on a wrong value.
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

enum { kThreads = 3, kRounds = 4 };

int main(int argc, char** argv) {
  int provided = -1, me = 0, np = 0, bad = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  for (int round = 0; round < kRounds; ++round) {
    long sum = 0;
    int team = 0, level = -1, total = 0;
#pragma omp parallel num_threads(kThreads) reduction(+ : sum)
    {
      for (int i = 0; i < 1000; ++i) sum += i + me;
#pragma omp master
      {
        team = omp_get_num_threads();
        level = omp_get_level();
        int mine = me + round;
        MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* other ranks run meanwhile */
      }
#pragma omp barrier
    }
    const long want = (long)kThreads * (499500 + 1000L * me);
    if (sum != want || team != kThreads || level != 1 || total != np * (np - 1) / 2 + np * round) {
      fprintf(stderr, "openmp_ranks: FAILED: rank %d round %d: sum %ld (want %ld), team %d, level %d, total %d\n", me,
              round, sum, want, team, level, total);
      bad = 1;
    }
  }
  printf("rank %d: %d rounds of %d-thread regions %s\n", me, kRounds, kThreads, bad ? "FAILED" : "right");
  MPI_Finalize();
  return bad;
}
