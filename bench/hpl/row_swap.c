/* The access pattern of HPL 2.3's HPL_dlaswp00N (row interchanges of a column-major matrix, 32 columns at a
 * time), timed on this host against bench/hpl/hpl.toml's model of it: 144 bytes per element at the [kernels]
 * bandwidth (docs/real-programs.md, "HPL's own kernels"). Written for xsim; HPL's code is not used.
 * Usage: row_swap BANDWIDTH_GBPS [M N LDA ...]  (default: HPL's shapes at N = 6,000, NB = 128 and larger) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double thread_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Swaps row i with row ipiv[i] for i < m over n columns, in blocks of 32 columns; least of 7 runs. */
static double time_swaps(int m, int n, int lda) {
  double* a = malloc(sizeof(double) * (size_t)lda * (size_t)n);
  int* ipiv = malloc(sizeof(int) * (size_t)m);
  if (!a || !ipiv) return -1;
  for (size_t i = 0; i < (size_t)lda * (size_t)n; ++i) a[i] = (double)i;
  srand(1);
  double best = 1e30;
  for (int run = 0; run < 7; ++run) {
    for (int i = 0; i < m; ++i) ipiv[i] = i + rand() % (lda - i);  /* a pivot anywhere below */
    const double t0 = thread_seconds();
    for (int j0 = 0; j0 < n; j0 += 32) {
      const int j1 = j0 + 32 < n ? j0 + 32 : n;
      for (int i = 0; i < m; ++i) {
        if (ipiv[i] == i) continue;
        double* x = a + (size_t)j0 * (size_t)lda + i;
        double* y = a + (size_t)j0 * (size_t)lda + ipiv[i];
        for (int j = j0; j < j1; ++j, x += lda, y += lda) {
          const double r = *x;
          *x = *y;
          *y = r;
        }
      }
    }
    const double t = thread_seconds() - t0;
    if (t < best) best = t;
  }
  free(a);
  free(ipiv);
  return best;
}

int main(int argc, char** argv) {
  if (argc < 2 || (argc - 2) % 3 != 0) {
    fprintf(stderr, "usage: row_swap BANDWIDTH_GBPS [M N LDA ...]\n");
    return 2;
  }
  const double bw = atof(argv[1]) * 1e9;
  static const int defaults[] = {128, 3000, 6000, 128, 1500, 6000, 64, 3000, 6000, 192, 3000, 20000, 128, 300, 6000};
  const int count = argc > 2 ? (argc - 2) / 3 : (int)(sizeof defaults / sizeof defaults[0]) / 3;
  printf("%6s %6s %6s %12s %14s %8s\n", "M", "N", "LDA", "measured_ms", "model_144_ms", "ratio");
  for (int k = 0; k < count; ++k) {
    const int m = argc > 2 ? atoi(argv[2 + 3 * k]) : defaults[3 * k];
    const int n = argc > 2 ? atoi(argv[3 + 3 * k]) : defaults[3 * k + 1];
    const int lda = argc > 2 ? atoi(argv[4 + 3 * k]) : defaults[3 * k + 2];
    if (m <= 0 || n <= 0 || lda < m) {
      fprintf(stderr, "row_swap: bad shape M=%d N=%d LDA=%d (need M, N > 0 and LDA >= M)\n", m, n, lda);
      return 2;
    }
    const double t = time_swaps(m, n, lda), model = 144.0 * m * n / bw;
    printf("%6d %6d %6d %12.3f %14.3f %8.2f\n", m, n, lda, t * 1e3, model * 1e3, t / model);
  }
  return 0;
}
