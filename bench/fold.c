/* Memory folding's costs (docs/real-programs.md "Memory folding" lists the commands and results):
 *   fold_native malloc N ITERS   (no MPI call: natively, or with libxsim.so preloaded: one rank, folding off) ns per
 *                         malloc(N)+free pair
 *   fold rank N ITERS     (under xsim, -xsim-virtual-clocks off) the same on a virtual rank, folded when N is
 *                         at least -xsim-fold: same size every time, and shrinking by 1000 bytes each time
 *   fold memory MB MSG touch|write   (under xsim) each rank allocates MB MiB, touches its edges or writes all
 *                         of it, and sends MSG MiB from it to the next rank (a ring), received into it; rank 0
 *                         prints the process's PSS and RSS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static void* volatile sink;
static double pairs(size_t n, long iters, int shrink) {
  double t0 = now();
  for (long i = 0; i < iters; ++i) {
    void* p = malloc(shrink ? n - (size_t)(i % 1000) * 1000 : n);
    sink = p;
    free(p);
  }
  return (now() - t0) / (double)iters * 1e9;
}
static long status_kib(const char* file, const char* key) {
  FILE* f = fopen(file, "r");
  char line[256];
  long kib = -1;
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, key, strlen(key))) kib = atol(line + strlen(key));
  if (f) fclose(f);
  return kib;
}

int main(int argc, char** argv) {
  if (argc < 4) return 2;
  if (!strcmp(argv[1], "malloc")) {
    size_t n = (size_t)atol(argv[2]);
    long iters = atol(argv[3]);
    pairs(n, iters / 10, 0);
    printf("malloc+free of %zu bytes: %.1f ns per pair\n", n, pairs(n, iters, 0));
    return 0;
  }
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (!strcmp(argv[1], "rank")) {
    size_t n = (size_t)atol(argv[2]);
    long iters = atol(argv[3]);
    double same = pairs(n, iters, 0), shrinking = pairs(n, iters, 1);
    if (me == 0) printf("rank malloc+free of %zu bytes: %.1f ns per pair, shrinking %.1f ns\n", n, same, shrinking);
  } else {
    size_t bytes = (size_t)atol(argv[2]) << 20, msg = (size_t)atol(argv[3]) << 20;
    char* a = malloc(bytes);
    if (!strcmp(argv[4], "write")) memset(a, me, bytes);
    else a[0] = a[bytes - 1] = (char)me;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now();
    MPI_Sendrecv(a, (int)msg, MPI_BYTE, (me + 1) % np, 0, a + bytes - msg, (int)msg, MPI_BYTE, (me + np - 1) % np, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    double t1 = now();
    if (me == 0)
      printf("%d ranks x %zu MiB (%s), %zu MiB messages: exchange %.3f s host, PSS %ld KiB, RSS %ld KiB\n", np,
             bytes >> 20, argv[4], msg >> 20, t1 - t0, status_kib("/proc/self/smaps_rollup", "Pss:"),
             status_kib("/proc/self/status", "VmRSS:"));
    free(a);
  }
  MPI_Finalize();
  return 0;
}
