/* A decision at virtual time T sees everything that reaches the rank at T, also what the rank started
 * itself at T with zero latency. Each rank posts an MPI_Irecv (the engine finds the rank the earliest of its
 * process at T and remembers it: Engine::ensure_earliest), then MPI_Rget from its own window under a lock
 * of its own: a rank's messages to itself cost no time, so the engine applies the get at T and its reply
 * arrives at T, before the rank goes on (engine-applied messages go first on ties, docs/rma.md). The
 * MPI_Test that follows at the same T must therefore ask the run queue again and find the get complete.
 * Prints one line per rank; exits 1 on a wrong answer. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int me, *base = NULL, got = -1, in = -1, out, flag = 0, ok;
  MPI_Win win;
  MPI_Request rget, recv;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  *base = 10 * me + 1;
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win);
  double t0 = MPI_Wtime();
  MPI_Irecv(&in, 1, MPI_INT, me, 5, MPI_COMM_WORLD, &recv);
  MPI_Rget(&got, 1, MPI_INT, me, 0, 1, MPI_INT, win, &rget);
  MPI_Test(&rget, &flag, MPI_STATUS_IGNORE);
  double t1 = MPI_Wtime();
  if (!flag) MPI_Wait(&rget, MPI_STATUS_IGNORE);
  MPI_Win_unlock(me, win);
  out = me;
  MPI_Send(&out, 1, MPI_INT, me, 5, MPI_COMM_WORLD);
  MPI_Wait(&recv, MPI_STATUS_IGNORE);
  ok = flag && got == 10 * me + 1 && in == me && t1 - t0 < 1e-6;
  printf("rank %d: get from itself complete at the first test: %s (value %d, %.9f s)\n", me,
         ok ? "yes" : "NO", got, t1 - t0);
  MPI_Win_free(&win);
  MPI_Finalize();
  return ok ? 0 : 1;
}
