/* The "scaled" processor model charges measured host compute time x scale. Each rank spins for 20 ms of
 * host time (the loop ends after 20 ms of wall time, however it was scheduled); with -xsim-cpu-scale 0.5
 * its virtual clock must advance by 10 ms plus at most a few ms of call overhead, which excludes both an
 * ignored factor (20 ms) and an uncharged rank (0). Exits 1 if not. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
  int me;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  double v0 = MPI_Wtime(), h0 = now();
  volatile double x = 0;
  while (now() - h0 < 0.020) x += 1.0;
  double dv = MPI_Wtime() - v0;
  int ok = dv >= 0.010 && dv < 0.015;
  printf("rank %d: 20 ms of host compute -> %.3f ms virtual: %s\n", me, dv * 1e3, ok ? "ok" : "FAILED");
  MPI_Finalize();
  return ok ? 0 : 1;
}
