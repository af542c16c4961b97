/* The host cost of one BLAS call through libxsim's entry points (docs/real-programs.md "Kernel models",
 * "Cost"): dgemm_ and daxpy_ of zero size (the BLAS returns at once, so the figure is the call path) and
 * dgemm_ 8 x 8 x 8 (ITER / 10 times), the fastest of 5 rounds, in ns per call (CLOCK_MONOTONIC; under xsim run it with
 * -xsim-virtual-clocks off). Run it natively, then under LD_PRELOAD=libxsim.so with -xsim-kernels exec
 * and -xsim-kernels model: bench/blas_calls.sh. Usage: blas_calls [ITER] */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*, const double*,
            const int*, const double*, const int*, const double*, double*, const int*, size_t, size_t);
void daxpy_(const int*, const double*, const double*, const int*, double*, const int*);

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const long iter = argc > 1 ? atol(argv[1]) : 10000000;
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  static double a[64], b[64], c[64];
  const int zero = 0, one = 1, eight = 8;
  const double alpha = 1.0, beta = 0.0;
  for (int i = 0; i < 64; ++i) a[i] = b[i] = 1.0 / (i + 1);
  /* The BLAS's own dgemm_, past libxsim's entry point: the same call without the forwarder. */
  typedef void (*Gemm)(const char*, const char*, const int*, const int*, const int*, const double*, const double*,
                       const int*, const double*, const int*, const double*, double*, const int*, size_t, size_t);
  void* blas = dlopen("libblas.so.3", RTLD_NOW | RTLD_NOLOAD);
  Gemm own = blas ? (Gemm)dlsym(blas, "dgemm_") : dgemm_;
  const long small = iter / 10;
  double best[4] = {1e30, 1e30, 1e30, 1e30};  /* the fastest of 5 rounds: the machine may be shared */
  for (int round = 0; round < 5; ++round) {
    double t0 = now();
    for (long i = 0; i < iter; ++i) dgemm_("N", "N", &zero, &zero, &zero, &alpha, a, &one, b, &one, &beta, c, &one, 1, 1);
    double t1 = now();
    for (long i = 0; i < iter; ++i) daxpy_(&zero, &alpha, a, &one, c, &one);
    double t2 = now();
    for (long i = 0; i < small; ++i)
      dgemm_("N", "N", &eight, &eight, &eight, &alpha, a, &eight, b, &eight, &beta, c, &eight, 1, 1);
    double t3 = now();
    for (long i = 0; i < iter; ++i) own("N", "N", &zero, &zero, &zero, &alpha, a, &one, b, &one, &beta, c, &one, 1, 1);
    double t4 = now();
    const double t[4] = {(t1 - t0) / iter, (t2 - t1) / iter, (t3 - t2) / small, (t4 - t3) / iter};
    for (int k = 0; k < 4; ++k) best[k] = t[k] < best[k] ? t[k] : best[k];
  }
  if (rank == 0)
    printf("dgemm_ 0x0x0 %.1f ns (the BLAS's own: %.1f ns)   daxpy_ n=0 %.1f ns   dgemm_ 8x8x8 %.1f ns   per call "
           "(c[0] = %g)\n", best[0] * 1e9, best[3] * 1e9, best[1] * 1e9, best[2] * 1e9, c[0]);
  MPI_Finalize();
  return 0;
}
