// cuBLAS GEMMs as library calls: seer profile preloads the recorder, so these definitions come
// before cuBLAS's own. Each wrapper names the call as Seer's cuBLAS does (label and shape,
// interposer/cublas/gemm.cpp), marks the kernels it launches with a CUPTI external correlation
// id (recorder.h) and calls the next definition. The session looks library calls up in the
// database by that name and shape, not by the kernels cuBLAS happens to choose.

#include <cublas_api.h>
#include <dlfcn.h>

#include <cstdint>
#include <string>

#include "gemm_types.h"
#include "recorder.h"

#define SEER_PROFILER_API extern "C" __attribute__((visibility("default")))

namespace {

namespace cb = seer::cublas;

template <typename Fn>
Fn next(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

bool tf32_math(cublasHandle_t h) {
  static auto get = next<cublasStatus_t (*)(cublasHandle_t, cublasMath_t*)>("cublasGetMathMode");
  cublasMath_t mode = CUBLAS_DEFAULT_MATH;
  return get && get(h, &mode) == CUBLAS_STATUS_SUCCESS &&
         (mode & 0xf) == CUBLAS_TF32_TENSOR_OP_MATH;
}

// Marks one call; calls that Seer's cuBLAS does not time (empty products) are not marked.
class Call {
 public:
  Call(const char* api, int dtype, int64_t m, int64_t n, int64_t k, int64_t batch) {
    if (m <= 0 || n <= 0 || k <= 0 || batch <= 0 || dtype < 0) return;
    id_ = seer::profiler::begin_library_call(cb::library_label(api, dtype),
                                             "m=" + std::to_string(m) + ",n=" + std::to_string(n) +
                                                 ",k=" + std::to_string(k) +
                                                 ",batch=" + std::to_string(batch));
  }
  ~Call() { seer::profiler::end_library_call(id_); }
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;

 private:
  uint64_t id_ = 0;
};

// The element type of an Ex GEMM (-1: a combination cuBLAS rejects anyway) and its k factor.
int ex_dtype(cublasHandle_t h, cudaDataType a, int raw_compute) {
  cublasComputeType_t compute;
  if (!cb::type_info(a).valid || !cb::normalize_compute(raw_compute, &compute)) return -1;
  return cb::element_dtype(a, compute, tf32_math(h));
}
int64_t k_factor(cudaDataType a) { return cb::type_info(a).complex ? 4 : 1; }
int fp32_dtype(cublasHandle_t h) { return tf32_math(h) ? cb::kTF32 : cb::kF32; }

// The C entry points (cublas_api.h also declares C++ overloads of these two names).
using GemmExFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int,
                                    int, const void*, const void*, cudaDataType, int, const void*,
                                    cudaDataType, int, const void*, void*, cudaDataType, int,
                                    cublasComputeType_t, cublasGemmAlgo_t);
using GemmStridedBatchedExFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t,
                                                  cublasOperation_t, int, int, int, const void*,
                                                  const void*, cudaDataType, int, long long,
                                                  const void*, cudaDataType, int, long long,
                                                  const void*, void*, cudaDataType, int, long long,
                                                  int, cublasComputeType_t, cublasGemmAlgo_t);

}  // namespace

SEER_PROFILER_API cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t ta,
                                              cublasOperation_t tb, int m, int n, int k,
                                              const void* alpha, const void* A, cudaDataType at,
                                              int lda, const void* B, cudaDataType bt, int ldb,
                                              const void* beta, void* C, cudaDataType ct, int ldc,
                                              cublasComputeType_t compute, cublasGemmAlgo_t algo) {
  static auto real = next<GemmExFn>("cublasGemmEx");
  if (!real) return CUBLAS_STATUS_NOT_INITIALIZED;
  Call call("cublasGemmEx", ex_dtype(h, at, compute), m, n, k * k_factor(at), 1);
  return real(h, ta, tb, m, n, k, alpha, A, at, lda, B, bt, ldb, beta, C, ct, ldc, compute, algo);
}

SEER_PROFILER_API cublasStatus_t
cublasGemmEx_64(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n,
                int64_t k, const void* alpha, const void* A, cudaDataType at, int64_t lda,
                const void* B, cudaDataType bt, int64_t ldb, const void* beta, void* C,
                cudaDataType ct, int64_t ldc, cublasComputeType_t compute, cublasGemmAlgo_t algo) {
  static auto real = next<decltype(&cublasGemmEx_64)>("cublasGemmEx_64");
  if (!real) return CUBLAS_STATUS_NOT_INITIALIZED;
  Call call("cublasGemmEx", ex_dtype(h, at, compute), m, n, k * k_factor(at), 1);
  return real(h, ta, tb, m, n, k, alpha, A, at, lda, B, bt, ldb, beta, C, ct, ldc, compute, algo);
}

SEER_PROFILER_API cublasStatus_t cublasGemmStridedBatchedEx(
    cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
    const void* alpha, const void* A, cudaDataType at, int lda, long long sa, const void* B,
    cudaDataType bt, int ldb, long long sb, const void* beta, void* C, cudaDataType ct, int ldc,
    long long sc, int batch, cublasComputeType_t compute, cublasGemmAlgo_t algo) {
  static auto real = next<GemmStridedBatchedExFn>("cublasGemmStridedBatchedEx");
  if (!real) return CUBLAS_STATUS_NOT_INITIALIZED;
  Call call("cublasGemmStridedBatchedEx", ex_dtype(h, at, compute), m, n, k * k_factor(at), batch);
  return real(h, ta, tb, m, n, k, alpha, A, at, lda, sa, B, bt, ldb, sb, beta, C, ct, ldc, sc,
              batch, compute, algo);
}

SEER_PROFILER_API cublasStatus_t cublasGemmStridedBatchedEx_64(
    cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n, int64_t k,
    const void* alpha, const void* A, cudaDataType at, int64_t lda, long long sa, const void* B,
    cudaDataType bt, int64_t ldb, long long sb, const void* beta, void* C, cudaDataType ct,
    int64_t ldc, long long sc, int64_t batch, cublasComputeType_t compute, cublasGemmAlgo_t algo) {
  static auto real =
      next<decltype(&cublasGemmStridedBatchedEx_64)>("cublasGemmStridedBatchedEx_64");
  if (!real) return CUBLAS_STATUS_NOT_INITIALIZED;
  Call call("cublasGemmStridedBatchedEx", ex_dtype(h, at, compute), m, n, k * k_factor(at), batch);
  return real(h, ta, tb, m, n, k, alpha, A, at, lda, sa, B, bt, ldb, sb, beta, C, ct, ldc, sc,
              batch, compute, algo);
}

SEER_PROFILER_API cublasStatus_t cublasSgemm_v2(cublasHandle_t h, cublasOperation_t ta,
                                                cublasOperation_t tb, int m, int n, int k,
                                                const float* alpha, const float* A, int lda,
                                                const float* B, int ldb, const float* beta,
                                                float* C, int ldc) {
  static auto real = next<decltype(&cublasSgemm_v2)>("cublasSgemm_v2");
  if (!real) return CUBLAS_STATUS_NOT_INITIALIZED;
  Call call("cublasSgemm", fp32_dtype(h), m, n, k, 1);
  return real(h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

SEER_PROFILER_API cublasStatus_t cublasSgemmStridedBatched(
    cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
    const float* alpha, const float* A, int lda, long long sa, const float* B, int ldb,
    long long sb, const float* beta, float* C, int ldc, long long sc, int batch) {
  static auto real = next<decltype(&cublasSgemmStridedBatched)>("cublasSgemmStridedBatched");
  if (!real) return CUBLAS_STATUS_NOT_INITIALIZED;
  Call call("cublasSgemmStridedBatched", fp32_dtype(h), m, n, k, batch);
  return real(h, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, batch);
}

SEER_PROFILER_API cublasStatus_t cublasDgemm_v2(cublasHandle_t h, cublasOperation_t ta,
                                                cublasOperation_t tb, int m, int n, int k,
                                                const double* alpha, const double* A, int lda,
                                                const double* B, int ldb, const double* beta,
                                                double* C, int ldc) {
  static auto real = next<decltype(&cublasDgemm_v2)>("cublasDgemm_v2");
  if (!real) return CUBLAS_STATUS_NOT_INITIALIZED;
  Call call("cublasDgemm", cb::kF64, m, n, k, 1);
  return real(h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
