// cuBLAS level-1 and level-2 routines (axpy, scal, dot, nrm2, asum, copy, swap, amax/amin, gemv,
// ger) in S/D/C/Z, 32- and 64-bit indices. They are memory-bound: each becomes a timed op moving
// the bytes the routine reads and writes. With CUBLAS_POINTER_MODE_HOST a routine returning a
// scalar (dot, nrm2, asum, amax) blocks until its stream has finished it, as the real library's
// copy back does, and writes 0 (index routines: 1, the first element) since values are not
// simulated.

#include <cublas_v2.h>

#include <algorithm>

#include "handle.h"

using namespace seer::cublas;

namespace {

struct Elem {
  int dtype;
  int bytes;
};
constexpr Elem kSe{kF32, 4};
constexpr Elem kDe{kF64, 8};
constexpr Elem kCe{kF32, 8};
constexpr Elem kZe{kF64, 16};

cublasStatus_t submit(cublasContext* h, const char* api, Elem e, int64_t m, int64_t n,
                      double elements) {
  LibraryOp op;
  op.api = api;
  op.m = m;
  op.n = n;
  op.dtype = op.compute = e.dtype;
  op.gemm = false;
  op.bytes = elements * e.bytes;
  return enqueue(h->stream, op);
}

// A vector routine touching `touches` x n elements. `quick`: BLAS's early return (n <= 0, or an
// increment <= 0 where the routine ignores such vectors).
cublasStatus_t vector(cublasHandle_t handle, const char* api, Elem e, int64_t n, int touches,
                      bool args_ok, bool quick) {
  cublasContext* h = live(handle);
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!args_ok) return CUBLAS_STATUS_INVALID_VALUE;
  if (n <= 0 || quick) return CUBLAS_STATUS_SUCCESS;
  return submit(h, api, e, 0, n, static_cast<double>(touches) * static_cast<double>(n));
}

// A reduction to one scalar, written on the host or left on the device per the pointer mode.
template <class R>
cublasStatus_t reduce(cublasHandle_t handle, const char* api, Elem e, int64_t n, int touches,
                      bool quick, R* result, R value) {
  cublasContext* h = live(handle);
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!result) return CUBLAS_STATUS_INVALID_VALUE;
  const bool host = h->pointer_mode == CUBLAS_POINTER_MODE_HOST;
  if (n <= 0 || quick) {
    if (host) *result = R{};
    return CUBLAS_STATUS_SUCCESS;
  }
  if (cublasStatus_t st =
          submit(h, api, e, 0, n, static_cast<double>(touches) * static_cast<double>(n))) {
    return st;
  }
  if (host) {
    wait_for_host_result(h);
    *result = value;
  }
  return CUBLAS_STATUS_SUCCESS;
}

bool valid_op(cublasOperation_t t) {
  return t == CUBLAS_OP_N || t == CUBLAS_OP_T || t == CUBLAS_OP_C;
}

// y = alpha op(A) x + beta y: reads A, x and y, writes y.
cublasStatus_t gemv(cublasHandle_t handle, const char* api, Elem e, cublasOperation_t trans,
                    int64_t m, int64_t n, const void* alpha, int64_t lda, int64_t incx,
                    const void* beta, int64_t incy) {
  cublasContext* h = live(handle);
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!valid_op(trans) || m < 0 || n < 0 || lda < std::max<int64_t>(1, m) || incx == 0 ||
      incy == 0 || !alpha || !beta) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  const double x_len = static_cast<double>(trans == CUBLAS_OP_N ? n : m);
  const double y_len = static_cast<double>(trans == CUBLAS_OP_N ? m : n);
  return submit(h, api, e, m, n,
                static_cast<double>(m) * static_cast<double>(n) + x_len + 2 * y_len);
}

// A += alpha x y^T: reads x, y and A, writes A.
cublasStatus_t ger(cublasHandle_t handle, const char* api, Elem e, int64_t m, int64_t n,
                   const void* alpha, int64_t incx, int64_t incy, int64_t lda) {
  cublasContext* h = live(handle);
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (m < 0 || n < 0 || incx == 0 || incy == 0 || lda < std::max<int64_t>(1, m) || !alpha) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  return submit(h, api, e, m, n,
                2 * static_cast<double>(m) * static_cast<double>(n) + static_cast<double>(m + n));
}

}  // namespace

// Each macro defines the 32-bit-index routine NAME_v2 and the 64-bit one NAME_v2_64.
#define SEER_BOTH(MACRO, NAME, ...)  \
  MACRO(NAME##_v2, int, __VA_ARGS__) \
  MACRO(NAME##_v2_64, int64_t, __VA_ARGS__)

#define SEER_AXPY(NAME, I, API, E, T, S)                                                     \
  SEER_CUBLAS_API cublasStatus_t NAME(cublasHandle_t h, I n, const S* alpha, const T* /*x*/, \
                                      I incx, T* /*y*/, I incy) {                            \
    return vector(h, API, E, n, 3, alpha != nullptr, false);                                 \
  }
SEER_BOTH(SEER_AXPY, cublasSaxpy, "cublasSaxpy", kSe, float, float)
SEER_BOTH(SEER_AXPY, cublasDaxpy, "cublasDaxpy", kDe, double, double)
SEER_BOTH(SEER_AXPY, cublasCaxpy, "cublasCaxpy", kCe, cuComplex, cuComplex)
SEER_BOTH(SEER_AXPY, cublasZaxpy, "cublasZaxpy", kZe, cuDoubleComplex, cuDoubleComplex)

#define SEER_SCAL(NAME, I, API, E, T, S)                                                         \
  SEER_CUBLAS_API cublasStatus_t NAME(cublasHandle_t h, I n, const S* alpha, T* /*x*/, I incx) { \
    return vector(h, API, E, n, 2, alpha != nullptr, incx <= 0);                                 \
  }
SEER_BOTH(SEER_SCAL, cublasSscal, "cublasSscal", kSe, float, float)
SEER_BOTH(SEER_SCAL, cublasDscal, "cublasDscal", kDe, double, double)
SEER_BOTH(SEER_SCAL, cublasCscal, "cublasCscal", kCe, cuComplex, cuComplex)
SEER_BOTH(SEER_SCAL, cublasZscal, "cublasZscal", kZe, cuDoubleComplex, cuDoubleComplex)
SEER_BOTH(SEER_SCAL, cublasCsscal, "cublasCsscal", kCe, cuComplex, float)
SEER_BOTH(SEER_SCAL, cublasZdscal, "cublasZdscal", kZe, cuDoubleComplex, double)

#define SEER_COPY(NAME, I, API, E, T)                                                          \
  SEER_CUBLAS_API cublasStatus_t NAME(cublasHandle_t h, I n, const T* /*x*/, I incx, T* /*y*/, \
                                      I incy) {                                                \
    return vector(h, API, E, n, 2, true, false);                                               \
  }
SEER_BOTH(SEER_COPY, cublasScopy, "cublasScopy", kSe, float)
SEER_BOTH(SEER_COPY, cublasDcopy, "cublasDcopy", kDe, double)
SEER_BOTH(SEER_COPY, cublasCcopy, "cublasCcopy", kCe, cuComplex)
SEER_BOTH(SEER_COPY, cublasZcopy, "cublasZcopy", kZe, cuDoubleComplex)

#define SEER_SWAP(NAME, I, API, E, T)                                                              \
  SEER_CUBLAS_API cublasStatus_t NAME(cublasHandle_t h, I n, T* /*x*/, I incx, T* /*y*/, I incy) { \
    return vector(h, API, E, n, 4, true, false);                                                   \
  }
SEER_BOTH(SEER_SWAP, cublasSswap, "cublasSswap", kSe, float)
SEER_BOTH(SEER_SWAP, cublasDswap, "cublasDswap", kDe, double)
SEER_BOTH(SEER_SWAP, cublasCswap, "cublasCswap", kCe, cuComplex)
SEER_BOTH(SEER_SWAP, cublasZswap, "cublasZswap", kZe, cuDoubleComplex)

#define SEER_DOT(NAME, I, API, E, T)                                                 \
  SEER_CUBLAS_API cublasStatus_t NAME(cublasHandle_t h, I n, const T* /*x*/, I incx, \
                                      const T* /*y*/, I incy, T* result) {           \
    return reduce<T>(h, API, E, n, 2, false, result, T{});                           \
  }
SEER_BOTH(SEER_DOT, cublasSdot, "cublasSdot", kSe, float)
SEER_BOTH(SEER_DOT, cublasDdot, "cublasDdot", kDe, double)
SEER_BOTH(SEER_DOT, cublasCdotu, "cublasCdotu", kCe, cuComplex)
SEER_BOTH(SEER_DOT, cublasCdotc, "cublasCdotc", kCe, cuComplex)
SEER_BOTH(SEER_DOT, cublasZdotu, "cublasZdotu", kZe, cuDoubleComplex)
SEER_BOTH(SEER_DOT, cublasZdotc, "cublasZdotc", kZe, cuDoubleComplex)

// nrm2 and asum: one vector in, a real scalar out.
#define SEER_NORM(NAME, I, API, E, T, R)                                                          \
  SEER_CUBLAS_API cublasStatus_t NAME(cublasHandle_t h, I n, const T* /*x*/, I incx, R* result) { \
    return reduce<R>(h, API, E, n, 1, incx <= 0, result, R{});                                    \
  }
SEER_BOTH(SEER_NORM, cublasSnrm2, "cublasSnrm2", kSe, float, float)
SEER_BOTH(SEER_NORM, cublasDnrm2, "cublasDnrm2", kDe, double, double)
SEER_BOTH(SEER_NORM, cublasScnrm2, "cublasScnrm2", kCe, cuComplex, float)
SEER_BOTH(SEER_NORM, cublasDznrm2, "cublasDznrm2", kZe, cuDoubleComplex, double)
SEER_BOTH(SEER_NORM, cublasSasum, "cublasSasum", kSe, float, float)
SEER_BOTH(SEER_NORM, cublasDasum, "cublasDasum", kDe, double, double)
SEER_BOTH(SEER_NORM, cublasScasum, "cublasScasum", kCe, cuComplex, float)
SEER_BOTH(SEER_NORM, cublasDzasum, "cublasDzasum", kZe, cuDoubleComplex, double)

// amax/amin: a 1-based index (0 for an empty vector); 64-bit routines return int64_t.
#define SEER_IAMAX(NAME, I, API, E, T)                                                            \
  SEER_CUBLAS_API cublasStatus_t NAME(cublasHandle_t h, I n, const T* /*x*/, I incx, I* result) { \
    return reduce<I>(h, API, E, n, 1, incx <= 0, result, I{1});                                   \
  }
SEER_BOTH(SEER_IAMAX, cublasIsamax, "cublasIsamax", kSe, float)
SEER_BOTH(SEER_IAMAX, cublasIdamax, "cublasIdamax", kDe, double)
SEER_BOTH(SEER_IAMAX, cublasIcamax, "cublasIcamax", kCe, cuComplex)
SEER_BOTH(SEER_IAMAX, cublasIzamax, "cublasIzamax", kZe, cuDoubleComplex)
SEER_BOTH(SEER_IAMAX, cublasIsamin, "cublasIsamin", kSe, float)
SEER_BOTH(SEER_IAMAX, cublasIdamin, "cublasIdamin", kDe, double)
SEER_BOTH(SEER_IAMAX, cublasIcamin, "cublasIcamin", kCe, cuComplex)
SEER_BOTH(SEER_IAMAX, cublasIzamin, "cublasIzamin", kZe, cuDoubleComplex)

#define SEER_GEMV(NAME, I, API, E, T)                                                        \
  SEER_CUBLAS_API cublasStatus_t NAME(cublasHandle_t h, cublasOperation_t trans, I m, I n,   \
                                      const T* alpha, const T* /*A*/, I lda, const T* /*x*/, \
                                      I incx, const T* beta, T* /*y*/, I incy) {             \
    return gemv(h, API, E, trans, m, n, alpha, lda, incx, beta, incy);                       \
  }
SEER_BOTH(SEER_GEMV, cublasSgemv, "cublasSgemv", kSe, float)
SEER_BOTH(SEER_GEMV, cublasDgemv, "cublasDgemv", kDe, double)
SEER_BOTH(SEER_GEMV, cublasCgemv, "cublasCgemv", kCe, cuComplex)
SEER_BOTH(SEER_GEMV, cublasZgemv, "cublasZgemv", kZe, cuDoubleComplex)

#define SEER_GER(NAME, I, API, E, T)                                                              \
  SEER_CUBLAS_API cublasStatus_t NAME(cublasHandle_t h, I m, I n, const T* alpha, const T* /*x*/, \
                                      I incx, const T* /*y*/, I incy, T* /*A*/, I lda) {          \
    return ger(h, API, E, m, n, alpha, incx, incy, lda);                                          \
  }
SEER_BOTH(SEER_GER, cublasSger, "cublasSger", kSe, float)
SEER_BOTH(SEER_GER, cublasDger, "cublasDger", kDe, double)
SEER_BOTH(SEER_GER, cublasCgeru, "cublasCgeru", kCe, cuComplex)
SEER_BOTH(SEER_GER, cublasCgerc, "cublasCgerc", kCe, cuComplex)
SEER_BOTH(SEER_GER, cublasZgeru, "cublasZgeru", kZe, cuDoubleComplex)
SEER_BOTH(SEER_GER, cublasZgerc, "cublasZgerc", kZe, cuDoubleComplex)
