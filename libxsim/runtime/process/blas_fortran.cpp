// The Fortran spellings of the modelled BLAS kernels (dgemm_, ..., idamax_), s and d (blas_kernels.hpp).
// The gfortran ABI: every argument by reference, and after them one hidden length (size_t) per CHARACTER
// argument (TRANSA, SIDE, ...). A forwarder passes every argument on unchanged, the lengths included (a C
// caller that passes none leaves whatever is in their place, which the real function reads the same).
// Under the model (blas::modelled()): nothing runs, the outputs keep their values, and the functions with
// a value return 0 (dot, nrm2) or 1 (iamax, 0 when n < 1): docs/real-programs.md "Kernel models".
#include <cstddef>
#include <cstdint>

#include "blas_kernels.hpp"

namespace {
using xsim::blas::shape;
using xsim::proc::Kernel;

bool is(const char* c, char upper) { return c && (*c == upper || *c == upper + ('a' - 'A')); }
int64_t v(const int* p) { return p ? *p : 0; }
}  // namespace

// ---- level 3 ------------------------------------------------------------------------------------------
#define XSIM_GEMM(NAME, T, SINGLE)                                                                           \
  XSIM_BLAS_ENTRY(NAME, void,                                                                                \
                  (const char* ta, const char* tb, const int* m, const int* n, const int* k, const T* alpha, \
                   const T* a, const int* lda, const T* b, const int* ldb, const T* beta, T* c,             \
                   const int* ldc, size_t lta, size_t ltb),                                                  \
                  (ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, lta, ltb),                          \
                  shape(Kernel::gemm, SINGLE, v(m), v(n), v(k)), void())
XSIM_GEMM(sgemm_, float, true)
XSIM_GEMM(dgemm_, double, false)

// trsm and trmm: B(m x n) with A triangular on the left (m x m) or the right (n x n).
#define XSIM_TRXM(NAME, KERNEL, T, SINGLE)                                                                   \
  XSIM_BLAS_ENTRY(NAME, void,                                                                                \
                  (const char* side, const char* uplo, const char* ta, const char* diag, const int* m,      \
                   const int* n, const T* alpha, const T* a, const int* lda, T* b, const int* ldb,          \
                   size_t ls, size_t lu, size_t lt, size_t ld),                                              \
                  (side, uplo, ta, diag, m, n, alpha, a, lda, b, ldb, ls, lu, lt, ld),                       \
                  shape(KERNEL, SINGLE, v(m), v(n), 0, is(side, 'R')), void())
XSIM_TRXM(strsm_, Kernel::trsm, float, true)
XSIM_TRXM(dtrsm_, Kernel::trsm, double, false)
XSIM_TRXM(strmm_, Kernel::trmm, float, true)
XSIM_TRXM(dtrmm_, Kernel::trmm, double, false)

#define XSIM_SYRK(NAME, T, SINGLE)                                                                           \
  XSIM_BLAS_ENTRY(NAME, void,                                                                                \
                  (const char* uplo, const char* trans, const int* n, const int* k, const T* alpha,         \
                   const T* a, const int* lda, const T* beta, T* c, const int* ldc, size_t lu, size_t lt),  \
                  (uplo, trans, n, k, alpha, a, lda, beta, c, ldc, lu, lt),                                  \
                  shape(Kernel::syrk, SINGLE, 0, v(n), v(k)), void())
XSIM_SYRK(ssyrk_, float, true)
XSIM_SYRK(dsyrk_, double, false)

#define XSIM_SYMM(NAME, T, SINGLE)                                                                           \
  XSIM_BLAS_ENTRY(NAME, void,                                                                                \
                  (const char* side, const char* uplo, const int* m, const int* n, const T* alpha,          \
                   const T* a, const int* lda, const T* b, const int* ldb, const T* beta, T* c,             \
                   const int* ldc, size_t ls, size_t lu),                                                    \
                  (side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc, ls, lu),                           \
                  shape(Kernel::symm, SINGLE, v(m), v(n), 0, is(side, 'R')), void())
XSIM_SYMM(ssymm_, float, true)
XSIM_SYMM(dsymm_, double, false)

// ---- level 2 ------------------------------------------------------------------------------------------
#define XSIM_GEMV(NAME, T, SINGLE)                                                                           \
  XSIM_BLAS_ENTRY(NAME, void,                                                                                \
                  (const char* trans, const int* m, const int* n, const T* alpha, const T* a,               \
                   const int* lda, const T* x, const int* incx, const T* beta, T* y, const int* incy,       \
                   size_t lt),                                                                               \
                  (trans, m, n, alpha, a, lda, x, incx, beta, y, incy, lt),                                  \
                  shape(Kernel::gemv, SINGLE, v(m), v(n), 0, false, !is(trans, 'N')), void())
XSIM_GEMV(sgemv_, float, true)
XSIM_GEMV(dgemv_, double, false)

#define XSIM_GER(NAME, T, SINGLE)                                                                            \
  XSIM_BLAS_ENTRY(NAME, void,                                                                                \
                  (const int* m, const int* n, const T* alpha, const T* x, const int* incx, const T* y,    \
                   const int* incy, T* a, const int* lda),                                                   \
                  (m, n, alpha, x, incx, y, incy, a, lda), shape(Kernel::ger, SINGLE, v(m), v(n)), void())
XSIM_GER(sger_, float, true)
XSIM_GER(dger_, double, false)

#define XSIM_TRSV(NAME, T, SINGLE)                                                                           \
  XSIM_BLAS_ENTRY(NAME, void,                                                                                \
                  (const char* uplo, const char* trans, const char* diag, const int* n, const T* a,         \
                   const int* lda, T* x, const int* incx, size_t lu, size_t lt, size_t ld),                 \
                  (uplo, trans, diag, n, a, lda, x, incx, lu, lt, ld), shape(Kernel::trsv, SINGLE, 0, v(n)), \
                  void())
XSIM_TRSV(strsv_, float, true)
XSIM_TRSV(dtrsv_, double, false)

// ---- level 1 ------------------------------------------------------------------------------------------
#define XSIM_AXPY(NAME, T, SINGLE)                                                                           \
  XSIM_BLAS_ENTRY(NAME, void, (const int* n, const T* alpha, const T* x, const int* incx, T* y, const int* incy), \
                  (n, alpha, x, incx, y, incy), shape(Kernel::axpy, SINGLE, 0, v(n)), void())
XSIM_AXPY(saxpy_, float, true)
XSIM_AXPY(daxpy_, double, false)

#define XSIM_SCAL(NAME, T, SINGLE)                                                                           \
  XSIM_BLAS_ENTRY(NAME, void, (const int* n, const T* alpha, T* x, const int* incx), (n, alpha, x, incx),   \
                  shape(Kernel::scal, SINGLE, 0, v(n)), void())
XSIM_SCAL(sscal_, float, true)
XSIM_SCAL(dscal_, double, false)

// copy and swap: (n, x, incx, y, incy), y written (copy) or both (swap).
#define XSIM_XY(NAME, KERNEL, T, SINGLE, CONST)                                                              \
  XSIM_BLAS_ENTRY(NAME, void, (const int* n, CONST T* x, const int* incx, T* y, const int* incy),           \
                  (n, x, incx, y, incy), shape(KERNEL, SINGLE, 0, v(n)), void())
XSIM_XY(scopy_, Kernel::copy, float, true, const)
XSIM_XY(dcopy_, Kernel::copy, double, false, const)
XSIM_XY(sswap_, Kernel::swap, float, true, )
XSIM_XY(dswap_, Kernel::swap, double, false, )

#define XSIM_DOT(NAME, T, SINGLE)                                                                            \
  XSIM_BLAS_ENTRY(NAME, T, (const int* n, const T* x, const int* incx, const T* y, const int* incy),        \
                  (n, x, incx, y, incy), shape(Kernel::dot, SINGLE, 0, v(n)), T(0))
XSIM_DOT(sdot_, float, true)
XSIM_DOT(ddot_, double, false)

#define XSIM_NRM2(NAME, T, SINGLE)                                                                           \
  XSIM_BLAS_ENTRY(NAME, T, (const int* n, const T* x, const int* incx), (n, x, incx),                       \
                  shape(Kernel::nrm2, SINGLE, 0, v(n)), T(0))
XSIM_NRM2(snrm2_, float, true)
XSIM_NRM2(dnrm2_, double, false)

#define XSIM_IAMAX(NAME, T, SINGLE)                                                                          \
  XSIM_BLAS_ENTRY(NAME, int, (const int* n, const T* x, const int* incx), (n, x, incx),                     \
                  shape(Kernel::iamax, SINGLE, 0, v(n)), v(n) > 0 ? 1 : 0)
XSIM_IAMAX(isamax_, float, true)
XSIM_IAMAX(idamax_, double, false)
