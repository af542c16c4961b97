/* The kernel models (-xsim-kernels; docs/real-programs.md "Kernel models") seen from a program that calls
 * the BLAS, Fortran (dgemm_) and CBLAS (cblas_dgemm) spellings. Usage: blas_kernels exec|model
 *   exec:  every call runs: the results must be right (C = A B, the solve, axpy, dot, iamax, ...); each
 *          rank prints "rank R exec: all results correct".
 *   model: under -xsim-kernels model, every call must leave its outputs untouched and return 0 (dot, CBLAS
 *          iamax) or 1 (Fortran iamax); each rank prints the virtual time of each call (MPI_Wtime) and
 *          their sum; rank 0 prints the sum over the ranks (an MPI_Reduce).
 * Each failed check prints FAIL and the program exits 1. The expected times are in blas_kernels.expected
 * (computed by hand from the formulas and tests/mpi/blas_kernels.toml; see the comment there). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Declared here, not from cblas.h: the test must not depend on which BLAS's headers are installed. */
void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*, const double*,
            const int*, const double*, const int*, const double*, double*, const int*, size_t, size_t);
void sgemm_(const char*, const char*, const int*, const int*, const int*, const float*, const float*, const int*,
            const float*, const int*, const float*, float*, const int*, size_t, size_t);
void dtrsm_(const char*, const char*, const char*, const char*, const int*, const int*, const double*,
            const double*, const int*, double*, const int*, size_t, size_t, size_t, size_t);
void dsyrk_(const char*, const char*, const int*, const int*, const double*, const double*, const int*,
            const double*, double*, const int*, size_t, size_t);
void dgemv_(const char*, const int*, const int*, const double*, const double*, const int*, const double*,
            const int*, const double*, double*, const int*, size_t);
void daxpy_(const int*, const double*, const double*, const int*, double*, const int*);
double ddot_(const int*, const double*, const int*, const double*, const int*);
int idamax_(const int*, const double*, const int*);
void cblas_dgemm(int, int, int, int, int, int, double, const double*, int, const double*, int, double, double*, int);
size_t cblas_idamax(int, const double*, int);
enum { ColMajor = 102, NoTrans = 111 };

static int rank, failed;
static double total;

static void check(int ok, const char* what) {
  if (!ok) {
    printf("rank %d FAIL: %s\n", rank, what);
    failed = 1;
  }
}

/* The virtual time since `t0`, printed and added to the rank's total (model). */
static void lap(const char* name, double t0, int print) {
  double t = MPI_Wtime() - t0;
  total += t;
  if (print) printf("rank %d %s %.9f\n", rank, name, t);
}

static double* filled(int n, double base) {
  double* v = malloc(sizeof(double) * (size_t)n);
  for (int i = 0; i < n; ++i) v[i] = base + (double)((i * 7 + 3) % 11) - 5.0;
  return v;
}

/* Level 3: dgemm_ 100^3, cblas_dgemm 200 x 100 x 50, sgemm_ 100^3, dtrsm_ side R 10 x 20, dsyrk_ n 50 k 20. */
static void level3(int model) {
  const int n = 100, m2 = 200, n2 = 100, k2 = 50, tm = 10, tn = 20, sn = 50, sk = 20;
  const double one = 1.0, zero = 0.0;
  double *a = filled(n * n, 0), *b = filled(n * n, 1), *c = filled(n * n, 2), *c0 = filled(n * n, 2);
  double t0 = MPI_Wtime();
  dgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
  lap("dgemm_", t0, model);
  if (model) check(memcmp(c, c0, sizeof(double) * n * n) == 0, "dgemm_ changed C under the model");
  else
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        double s = 0;
        for (int l = 0; l < n; ++l) s += a[i + l * n] * b[l + j * n];
        if (fabs(c[i + j * n] - s) > 1e-9 * (1 + fabs(s))) {
          check(0, "dgemm_ result");
          i = j = n;
        }
      }
  double *a2 = filled(m2 * k2, 0), *b2 = filled(k2 * n2, 1), *c2 = filled(m2 * n2, 2);
  t0 = MPI_Wtime();
  cblas_dgemm(ColMajor, NoTrans, NoTrans, m2, n2, k2, 1.0, a2, m2, b2, k2, 0.0, c2, m2);
  lap("cblas_dgemm", t0, model);
  if (!model) {
    double s = 0;
    for (int l = 0; l < k2; ++l) s += a2[7 + l * m2] * b2[l + 9 * k2];
    check(fabs(c2[7 + 9 * m2] - s) < 1e-9 * (1 + fabs(s)), "cblas_dgemm result");
  }
  float *sa = malloc(sizeof(float) * n * n), *sc = malloc(sizeof(float) * n * n);
  for (int i = 0; i < n * n; ++i) sa[i] = (float)(i % 5), sc[i] = 0;
  const float fone = 1, fzero = 0;
  t0 = MPI_Wtime();
  sgemm_("N", "N", &n, &n, &n, &fone, sa, &n, sa, &n, &fzero, sc, &n, 1, 1);
  lap("sgemm_", t0, model);
  if (!model) {
    float s = 0;
    for (int l = 0; l < n; ++l) s += sa[3 + l * n] * sa[l + 4 * n];
    check(sc[3 + 4 * n] == s, "sgemm_ result");
  }
  /* X A = B with A upper triangular 20 x 20 (diagonal 2, above 1): checked by multiplying back. */
  double *ta = calloc((size_t)tn * tn, sizeof(double)), *tb = filled(tm * tn, 0), *tb0 = filled(tm * tn, 0);
  for (int j = 0; j < tn; ++j)
    for (int i = 0; i <= j; ++i) ta[i + j * tn] = i == j ? 2.0 : 1.0;
  t0 = MPI_Wtime();
  dtrsm_("R", "U", "N", "N", &tm, &tn, &one, ta, &tn, tb, &tm, 1, 1, 1, 1);
  lap("dtrsm_", t0, model);
  if (model) check(memcmp(tb, tb0, sizeof(double) * tm * tn) == 0, "dtrsm_ changed B under the model");
  else {
    double s = 0;
    for (int l = 0; l < tn; ++l) s += tb[4 + l * tm] * ta[l + 13 * tn];
    check(fabs(s - tb0[4 + 13 * tm]) < 1e-9, "dtrsm_ result");
  }
  double *ya = filled(sn * sk, 0), *yc = calloc((size_t)sn * sn, sizeof(double));
  t0 = MPI_Wtime();
  dsyrk_("U", "N", &sn, &sk, &one, ya, &sn, &zero, yc, &sn, 1, 1);
  lap("dsyrk_", t0, model);
  if (!model) {
    double s = 0;
    for (int l = 0; l < sk; ++l) s += ya[3 + l * sn] * ya[30 + l * sn];
    check(fabs(yc[3 + 30 * sn] - s) < 1e-9 * (1 + fabs(s)), "dsyrk_ result");
  }
  free(a), free(b), free(c), free(c0), free(a2), free(b2), free(c2), free(sa), free(sc), free(ta), free(tb);
  free(tb0), free(ya), free(yc);
}

/* Levels 1 and 2: dgemv_ 'T' 100 x 200, daxpy_ n = 1000 (rank + 1), ddot_, idamax_, cblas_idamax n = 500. */
static void level12(int model) {
  const int m = 100, n = 200, inc = 1, an = 1000 * (rank + 1), dn = 500;
  const double one = 1.0, zero = 0.0, two = 2.0;
  double *a = filled(m * n, 0), *x = filled(m, 1), *y = filled(n, 2);
  double t0 = MPI_Wtime();
  dgemv_("T", &m, &n, &one, a, &m, x, &inc, &zero, y, &inc, 1);
  lap("dgemv_", t0, model);
  if (!model) {
    double s = 0;
    for (int i = 0; i < m; ++i) s += a[i + 17 * m] * x[i];
    check(fabs(y[17] - s) < 1e-9 * (1 + fabs(s)), "dgemv_ result");
  }
  double *ax = filled(an, 0), *ay = filled(an, 1), *ay0 = filled(an, 1);
  t0 = MPI_Wtime();
  daxpy_(&an, &two, ax, &inc, ay, &inc);
  lap("daxpy_", t0, model);
  if (model) check(memcmp(ay, ay0, sizeof(double) * an) == 0, "daxpy_ changed y under the model");
  else check(ay[an - 1] == ay0[an - 1] + 2 * ax[an - 1], "daxpy_ result");
  double *dx = filled(dn, 0), *dy = filled(dn, 3);
  dx[123] = 99;  /* the largest |x|: index 123 (Fortran 124) */
  t0 = MPI_Wtime();
  double d = ddot_(&dn, dx, &inc, dy, &inc);
  lap("ddot_", t0, model);
  double s = 0;
  for (int i = 0; i < dn; ++i) s += dx[i] * dy[i];
  check(model ? d == 0 : fabs(d - s) < 1e-9 * (1 + fabs(s)), "ddot_ value");
  t0 = MPI_Wtime();
  int fi = idamax_(&dn, dx, &inc);
  lap("idamax_", t0, model);
  check(fi == (model ? 1 : 124), "idamax_ value");
  t0 = MPI_Wtime();
  size_t ci = cblas_idamax(dn, dx, 1);
  lap("cblas_idamax", t0, model);
  check(ci == (model ? 0u : 123u), "cblas_idamax value");
  free(a), free(x), free(y), free(ax), free(ay), free(ay0), free(dx), free(dy);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int model = argc > 1 && strcmp(argv[1], "model") == 0;
  level3(model);
  level12(model);
  if (model) {
    printf("rank %d total %.9f\n", rank, total);
    double sum = 0;
    MPI_Reduce(&total, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("sum over ranks %.9f\n", sum);
  } else if (!failed) {
    printf("rank %d exec: all results correct\n", rank);
  }
  MPI_Finalize();
  return failed;
}
