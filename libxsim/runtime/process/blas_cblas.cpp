// The CBLAS spellings of the modelled BLAS kernels (cblas_dgemm, ..., cblas_idamax), s and d
// (blas_kernels.hpp). The CBLAS enumerations are C ints: CblasNoTrans 111, CblasLeft 141, CblasRight 142;
// the layout (row or column major) does not change a call's flops or bytes. Under the model
// (blas::modelled()): nothing runs, the outputs keep their values, and the functions with a value return
// 0 (dot, nrm2, and iamax, whose CBLAS index counts from 0): docs/real-programs.md "Kernel models".
#include <cstddef>

#include "blas_kernels.hpp"

namespace {
constexpr int kNoTrans = 111, kRight = 142;
}  // namespace

using xsim::blas::shape;
using xsim::proc::Kernel;

// ---- level 3 ------------------------------------------------------------------------------------------
#define XSIM_CGEMM(NAME, T, SINGLE)                                                                          \
  XSIM_BLAS_ENTRY(NAME, void,                                                                                \
                  (int layout, int ta, int tb, int m, int n, int k, T alpha, const T* a, int lda,            \
                   const T* b, int ldb, T beta, T* c, int ldc),                                              \
                  (layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc),                            \
                  shape(Kernel::gemm, SINGLE, m, n, k), void())
XSIM_CGEMM(cblas_sgemm, float, true)
XSIM_CGEMM(cblas_dgemm, double, false)

#define XSIM_CTRXM(NAME, KERNEL, T, SINGLE)                                                                  \
  XSIM_BLAS_ENTRY(NAME, void,                                                                                \
                  (int layout, int side, int uplo, int ta, int diag, int m, int n, T alpha, const T* a,      \
                   int lda, T* b, int ldb),                                                                  \
                  (layout, side, uplo, ta, diag, m, n, alpha, a, lda, b, ldb),                               \
                  shape(KERNEL, SINGLE, m, n, 0, side == kRight), void())
XSIM_CTRXM(cblas_strsm, Kernel::trsm, float, true)
XSIM_CTRXM(cblas_dtrsm, Kernel::trsm, double, false)
XSIM_CTRXM(cblas_strmm, Kernel::trmm, float, true)
XSIM_CTRXM(cblas_dtrmm, Kernel::trmm, double, false)

#define XSIM_CSYRK(NAME, T, SINGLE)                                                                          \
  XSIM_BLAS_ENTRY(NAME, void,                                                                                \
                  (int layout, int uplo, int trans, int n, int k, T alpha, const T* a, int lda, T beta,      \
                   T* c, int ldc),                                                                           \
                  (layout, uplo, trans, n, k, alpha, a, lda, beta, c, ldc),                                  \
                  shape(Kernel::syrk, SINGLE, 0, n, k), void())
XSIM_CSYRK(cblas_ssyrk, float, true)
XSIM_CSYRK(cblas_dsyrk, double, false)

#define XSIM_CSYMM(NAME, T, SINGLE)                                                                          \
  XSIM_BLAS_ENTRY(NAME, void,                                                                                \
                  (int layout, int side, int uplo, int m, int n, T alpha, const T* a, int lda, const T* b,   \
                   int ldb, T beta, T* c, int ldc),                                                          \
                  (layout, side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc),                           \
                  shape(Kernel::symm, SINGLE, m, n, 0, side == kRight), void())
XSIM_CSYMM(cblas_ssymm, float, true)
XSIM_CSYMM(cblas_dsymm, double, false)

// ---- level 2 ------------------------------------------------------------------------------------------
#define XSIM_CGEMV(NAME, T, SINGLE)                                                                          \
  XSIM_BLAS_ENTRY(NAME, void,                                                                                \
                  (int layout, int trans, int m, int n, T alpha, const T* a, int lda, const T* x, int incx,  \
                   T beta, T* y, int incy),                                                                  \
                  (layout, trans, m, n, alpha, a, lda, x, incx, beta, y, incy),                              \
                  shape(Kernel::gemv, SINGLE, m, n, 0, false, trans != kNoTrans), void())
XSIM_CGEMV(cblas_sgemv, float, true)
XSIM_CGEMV(cblas_dgemv, double, false)

#define XSIM_CGER(NAME, T, SINGLE)                                                                           \
  XSIM_BLAS_ENTRY(NAME, void,                                                                                \
                  (int layout, int m, int n, T alpha, const T* x, int incx, const T* y, int incy, T* a,      \
                   int lda),                                                                                 \
                  (layout, m, n, alpha, x, incx, y, incy, a, lda), shape(Kernel::ger, SINGLE, m, n), void())
XSIM_CGER(cblas_sger, float, true)
XSIM_CGER(cblas_dger, double, false)

#define XSIM_CTRSV(NAME, T, SINGLE)                                                                          \
  XSIM_BLAS_ENTRY(NAME, void,                                                                                \
                  (int layout, int uplo, int trans, int diag, int n, const T* a, int lda, T* x, int incx),   \
                  (layout, uplo, trans, diag, n, a, lda, x, incx), shape(Kernel::trsv, SINGLE, 0, n), void())
XSIM_CTRSV(cblas_strsv, float, true)
XSIM_CTRSV(cblas_dtrsv, double, false)

// ---- level 1 ------------------------------------------------------------------------------------------
#define XSIM_CAXPY(NAME, T, SINGLE)                                                                          \
  XSIM_BLAS_ENTRY(NAME, void, (int n, T alpha, const T* x, int incx, T* y, int incy),                       \
                  (n, alpha, x, incx, y, incy), shape(Kernel::axpy, SINGLE, 0, n), void())
XSIM_CAXPY(cblas_saxpy, float, true)
XSIM_CAXPY(cblas_daxpy, double, false)

#define XSIM_CSCAL(NAME, T, SINGLE)                                                                          \
  XSIM_BLAS_ENTRY(NAME, void, (int n, T alpha, T* x, int incx), (n, alpha, x, incx),                        \
                  shape(Kernel::scal, SINGLE, 0, n), void())
XSIM_CSCAL(cblas_sscal, float, true)
XSIM_CSCAL(cblas_dscal, double, false)

#define XSIM_CXY(NAME, KERNEL, T, SINGLE, CONST)                                                             \
  XSIM_BLAS_ENTRY(NAME, void, (int n, CONST T* x, int incx, T* y, int incy), (n, x, incx, y, incy),         \
                  shape(KERNEL, SINGLE, 0, n), void())
XSIM_CXY(cblas_scopy, Kernel::copy, float, true, const)
XSIM_CXY(cblas_dcopy, Kernel::copy, double, false, const)
XSIM_CXY(cblas_sswap, Kernel::swap, float, true, )
XSIM_CXY(cblas_dswap, Kernel::swap, double, false, )

// dot, nrm2, iamax: a value back (0 under the model). CBLAS_INDEX is size_t in the reference CBLAS and OpenBLAS.
XSIM_BLAS_ENTRY(cblas_sdot, float, (int n, const float* x, int incx, const float* y, int incy), (n, x, incx, y, incy),
                shape(Kernel::dot, true, 0, n), 0.0f)
XSIM_BLAS_ENTRY(cblas_ddot, double, (int n, const double* x, int incx, const double* y, int incy),
                (n, x, incx, y, incy), shape(Kernel::dot, false, 0, n), 0.0)
XSIM_BLAS_ENTRY(cblas_snrm2, float, (int n, const float* x, int incx), (n, x, incx), shape(Kernel::nrm2, true, 0, n),
                0.0f)
XSIM_BLAS_ENTRY(cblas_dnrm2, double, (int n, const double* x, int incx), (n, x, incx),
                shape(Kernel::nrm2, false, 0, n), 0.0)
XSIM_BLAS_ENTRY(cblas_isamax, size_t, (int n, const float* x, int incx), (n, x, incx),
                shape(Kernel::iamax, true, 0, n), 0)
XSIM_BLAS_ENTRY(cblas_idamax, size_t, (int n, const double* x, int incx), (n, x, incx),
                shape(Kernel::iamax, false, 0, n), 0)
