/* symbol_models: functions inside the program modelled by name ([kernels.symbols], docs/real-programs.md
 * "Functions of the program"). Built with the plain MPI compiler, without xsim, and run under LD_PRELOAD with
 * symbol_models.toml. Every function below is the program's own (noipa: not inlined, not cloned, so each
 * call reaches its symbol). Under -xsim-kernels model their bodies must not run (each would count in
 * body_runs and print), each returns 0, and the calling rank's clock moves by exactly the model's time;
 * a call from a native thread of the rank's charges nothing and returns 0. Under exec the bodies run.
 *   symbol_models          one line per rank: what the calls returned, body_runs, the rank's virtual time
 * Argument passing exercised: 8 integer/pointer arguments (the 7th and 8th on the stack), a double between
 * them (in xmm0, skipped by the model), a long above 2^31 (i64), negative ints (i32, sign-extended). */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

int body_runs = 0;

__attribute__((noipa)) int sym_gemm_like(int m, int n, double alpha, const double* a, long k, int lda, int ldb,
                                         int ldc, int extra) {
  body_runs++;
  printf("sym_gemm_like body ran (%d %d %g %p %ld %d %d %d %d)\n", m, n, alpha, (const void*)a, k, lda, ldb, ldc,
         extra);
  return 42;
}

__attribute__((noipa)) long sym_copy(int m, int n, const double* a, int lda, double* b, int ldb) {
  body_runs++;
  printf("sym_copy body ran (%d %d %p %d %p %d)\n", m, n, (const void*)a, lda, (void*)b, ldb);
  return 7;
}

__attribute__((noipa)) int sym_setup(void) {
  body_runs++;
  printf("sym_setup body ran\n");
  return 9;
}

/* Shorter than the 12-byte patch: symbol_models_tiny.toml must be refused. */
__attribute__((noipa)) int sym_tiny(void) { return 3; }

static void* native_thread(void* out) {
  *(int*)out = sym_setup();
  return NULL;
}

int main(int argc, char** argv) {
  int me;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  double x[4] = {0, 0, 0, 0};
  const double t0 = MPI_Wtime();
  int g = sym_gemm_like(10 * (me + 1), 20, 1.5, x, 3000000000L, me - 2, 0, 100, 1000 * me);
  long c = 0;
  for (int i = 0; i < 3; ++i) c += sym_copy(100, me + 1, x, 100, x, 100);
  int s = sym_setup();
  int from_thread = -1;
  pthread_t t;
  if (pthread_create(&t, NULL, native_thread, &from_thread) == 0) pthread_join(t, NULL);
  const double t1 = MPI_Wtime();
  printf("r%d: gemm_like %d copy %ld setup %d thread %d tiny %d body_runs %d time %.9f\n", me, g, c, s, from_thread,
         sym_tiny(), body_runs, t1 - t0);
  MPI_Finalize();
  return 0;
}
