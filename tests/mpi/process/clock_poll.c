/* clock_poll.c - ranks that wait for their clock to advance (Engine::read_clock's poll rule, engine.hpp).
 *
 * Every rank first charges rank x 1 us of computation (xsim_compute), then reads MPI_Wtime until it has
 * advanced by at least 1 us past its first read (a timer-resolution probe like STREAM's), then the ranks
 * meet in a barrier and read the clock 200 more times. With the processor model none the clock stands
 * still while a rank only reads it: the 256-th read in a row is the last one that returns the same
 * value, and each read after it advances the clock by the poll cost (100 ns by default), so the probe
 * ends after 256 + 9 reads past its first, 1 us later. The 200 reads after the barrier (whose
 * messages moved the clock; fewer than the 256 that make a poll) must all return the same value. Rank-ordered output (rank_log.h); the same
 * for any number of native processes.
 *
 *   clock_poll
 */
#include <mpi.h>
#include <stdio.h>

#include "rank_log.h"
#include "xsim.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, np = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  Log lg = {.len = 0};
  xsim_compute(me * 1e-6);

  const double t0 = MPI_Wtime();
  long reads = 0;
  double t1 = t0;
  while (t1 - t0 < 1e-6) {
    t1 = MPI_Wtime();
    ++reads;
  }
  say(&lg, "probe: %ld reads, from %.9f to %.9f s\n", reads, t0, t1);

  MPI_Barrier(MPI_COMM_WORLD);
  const double t2 = MPI_Wtime();
  int moved = 0;
  for (int i = 0; i < 200; ++i)
    if (MPI_Wtime() != t2) moved = 1;
  say(&lg, "after the barrier at %.9f s: 200 reads, %s\n", t2, moved ? "the clock MOVED" : "the clock stood still");

  print_all(&lg, me, np);
  MPI_Finalize();
  return moved;
}
