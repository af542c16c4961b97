/* The "scaled" processor model charges measured host compute time x scale. Each rank spins for 20 ms of
 * host time (the loop ends after 20 ms of wall time, however it was scheduled); with -xsim-cpu-scale 0.5
 * its virtual clock must advance by at least 10 ms and by at most half the host time around the two
 * MPI_Wtime calls (plus 1 ms of call overhead): the measured host time includes the time the process was
 * descheduled, so on a loaded machine the bound grows with it instead of failing. This excludes both an
 * ignored factor (the whole host time) and an uncharged rank (0). Exits 1 if not. */
#include <mpi.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Host time: the kernel's clock directly, past xsim's clock_gettime (which gives ranks virtual time). */
static double now(void) {
  struct timespec ts;
  syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
  int me;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  double ha = now();
  double v0 = MPI_Wtime(), h0 = now();
  volatile double x = 0;
  while (now() - h0 < 0.020) x += 1.0;
  double dv = MPI_Wtime() - v0;
  double hb = now();
  int ok = dv >= 0.010 && dv <= 0.5 * (hb - ha) + 0.001;
  printf("rank %d: 20 ms of host compute -> %.3f ms virtual: %s\n", me, dv * 1e3, ok ? "ok" : "FAILED");
  if (!ok) fprintf(stderr, "rank %d: expected 10 ms <= virtual <= %.3f ms (half of %.3f ms of host time + 1 ms)\n", me,
                   (0.5 * (hb - ha) + 0.001) * 1e3, (hb - ha) * 1e3);
  MPI_Finalize();
  return ok ? 0 : 1;
}
