/* sample_regions: sampled regions (include/xsim.h XSIM_SAMPLE_LOCAL / XSIM_SAMPLE_GLOBAL, docs/real-programs.md
 * "Sampling"). Modes:
 *   times    (-xsim-cpu none) one line per rank: how often each region ran and the virtual time it took in all.
 *            local: 10 executions of LOCAL(3) costing 1, 2, 3 ms (+ rank us) when they run: 3 run, 7 charge
 *            the mean 2 ms (+ rank us): 20 ms + 10 x rank us. global: 5 executions of GLOBAL(2) costing
 *            0.5 ms: 2.5 ms on every rank, whichever ran. nested: LOCAL(1) around LOCAL(2), 4 times: the
 *            first runs both (1 ms + 0.1 ms), the other three charge 1.1 ms: 4.4 ms, the inner ran once.
 *   count    rank 0 prints how many executions of the GLOBAL(2) region ran in all the ranks: 2 per native process.
 *   scaled   (-xsim-cpu scaled) a host loop of about 20 ms in LOCAL(1), 5 times: every execution after the
 *            first charges what the first measured (0.9 to 1.5 times the first iteration: the host time between the
 *            region and MPI_Wtime is noise under load; skipped, the region itself takes no host time).
 *   break    a break out of a sampled region: the next region's end reports it.
 *   zero     LOCAL(0): refused. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "xsim.h"

static double host_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);  /* a host clock even under virtual clocks */
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void times(int me) {
  int ran_local = 0, ran_global = 0, ran_outer = 0, ran_inner = 0;
  const double t0 = MPI_Wtime();
  for (int i = 0; i < 10; ++i) {
    XSIM_SAMPLE_LOCAL(3) {
      ran_local++;
      xsim_compute(1e-3 * (i + 1) + 1e-6 * me);
    }
  }
  const double t1 = MPI_Wtime();
  for (int i = 0; i < 5; ++i) {
    XSIM_SAMPLE_GLOBAL(2) {
      ran_global++;
      xsim_compute(5e-4);
    }
  }
  const double t2 = MPI_Wtime();
  for (int i = 0; i < 4; ++i) {
    XSIM_SAMPLE_LOCAL(1) {
      ran_outer++;
      xsim_compute(1e-3);
      XSIM_SAMPLE_LOCAL(2) {
        ran_inner++;
        xsim_compute(1e-4);
      }
    }
  }
  const double t3 = MPI_Wtime();
  (void)ran_global;
  printf("r%d: local ran %d time %.9f, global time %.9f, nested ran %d/%d time %.9f\n", me, ran_local, t1 - t0,
         t2 - t1, ran_outer, ran_inner, t3 - t2);
}

static void count(int me) {
  int ran = 0, all = 0;
  for (int i = 0; i < 5; ++i) {
    XSIM_SAMPLE_GLOBAL(2) {
      ran++;
      xsim_compute(5e-4);
    }
  }
  MPI_Reduce(&ran, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (me == 0) printf("global region ran %d times in all\n", all);
}

static void scaled(int me) {
  double d[5];
  volatile double x = 0;
  for (int i = 0; i < 5; ++i) {
    const double a = MPI_Wtime();
    XSIM_SAMPLE_LOCAL(1) {
      const double h = host_now();
      while (host_now() - h < 0.02) x += 1.0;
    }
    d[i] = MPI_Wtime() - a;
  }
  int ok = d[0] > 0.015;
  for (int i = 1; i < 5; ++i) ok = ok && d[i] > 0.9 * d[0] && d[i] < 1.5 * d[0]; /* host noise outside the region */
  printf("r%d: first %.6f s, then %.6f %.6f %.6f %.6f: %s\n", me, d[0], d[1], d[2], d[3], d[4],
         ok ? "the same" : "DIFFERENT");
}

int main(int argc, char** argv) {
  int me;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  const char* mode = argc > 1 ? argv[1] : "times";
  if (!strcmp(mode, "times")) times(me);
  if (!strcmp(mode, "count")) count(me);
  if (!strcmp(mode, "scaled")) scaled(me);
  if (!strcmp(mode, "break")) {
    for (int i = 0; i < 2; ++i) {
      XSIM_SAMPLE_LOCAL(2) {
        if (i < 10) break;
      }
    }
    XSIM_SAMPLE_LOCAL(2) { xsim_compute(1e-6); }
  }
  if (!strcmp(mode, "zero")) {
    XSIM_SAMPLE_LOCAL(0) { xsim_compute(1e-6); }
  }
  MPI_Finalize();
  return 0;
}
