// cuBLAS and cuBLASLt GEMMs as library calls: seer profile preloads the recorder, so these
// definitions come before cuBLAS's own. Each wrapper names the call as Seer's cuBLAS does (label
// and shape, interposer/cublas/gemm.cpp), marks the kernels it launches with a CUPTI external
// correlation id (recorder.h) and calls the next definition. The session looks library calls up in
// the database by that name and shape, not by the kernels cuBLAS happens to choose.

#include <cublasLt.h>
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

namespace {

template <typename T>
bool layout_attr(cublasLtMatrixLayout_t l, cublasLtMatrixLayoutAttribute_t attr, T* out) {
  static auto get =
      next<decltype(&cublasLtMatrixLayoutGetAttribute)>("cublasLtMatrixLayoutGetAttribute");
  size_t written = 0;
  return get && l && get(l, attr, out, sizeof *out, &written) == CUBLAS_STATUS_SUCCESS;
}

template <typename T>
bool desc_attr(cublasLtMatmulDesc_t d, cublasLtMatmulDescAttributes_t attr, T* out) {
  static auto get =
      next<decltype(&cublasLtMatmulDescGetAttribute)>("cublasLtMatmulDescGetAttribute");
  size_t written = 0;
  return get && d && get(d, attr, out, sizeof *out, &written) == CUBLAS_STATUS_SUCCESS;
}

// The call as Seer's cuBLASLt names it (interposer/cublas/lt.cpp): "cublasLtMatmul[+epilogue]",
// D's rows and columns, A's inner dimension, D's batch; an empty api when it cannot be read.
struct LtCall {
  std::string api;
  int dtype = -1;
  int64_t m = 0, n = 0, k = 0, batch = 1;
};

LtCall lt_call(cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t d) {
  LtCall call;
  int32_t transa = CUBLAS_OP_N, compute = 0, batch = 1;
  uint32_t epilogue = CUBLASLT_EPILOGUE_DEFAULT, a_type = 0;
  uint64_t a_rows = 0, a_cols = 0, d_rows = 0, d_cols = 0;
  if (!desc_attr(desc, CUBLASLT_MATMUL_DESC_TRANSA, &transa) ||
      !desc_attr(desc, CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, &compute) ||
      !desc_attr(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue) ||
      !layout_attr(a, CUBLASLT_MATRIX_LAYOUT_TYPE, &a_type) ||
      !layout_attr(a, CUBLASLT_MATRIX_LAYOUT_ROWS, &a_rows) ||
      !layout_attr(a, CUBLASLT_MATRIX_LAYOUT_COLS, &a_cols) ||
      !layout_attr(d, CUBLASLT_MATRIX_LAYOUT_ROWS, &d_rows) ||
      !layout_attr(d, CUBLASLT_MATRIX_LAYOUT_COLS, &d_cols) ||
      !layout_attr(d, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch)) {
    return call;
  }
  const char* e = cb::epilogue_name(epilogue);
  cublasComputeType_t c;
  const auto type = static_cast<cudaDataType>(a_type);
  if (!e || !cb::type_info(type).valid || !cb::normalize_compute(compute, &c)) return call;
  call.api = std::string("cublasLtMatmul") + (*e ? std::string("+") + e : std::string());
  call.dtype = cb::element_dtype(type, c, false);
  call.m = static_cast<int64_t>(d_rows);
  call.n = static_cast<int64_t>(d_cols);
  call.k = static_cast<int64_t>(transa == CUBLAS_OP_N ? a_cols : a_rows) * k_factor(type);
  call.batch = batch;
  return call;
}

}  // namespace

SEER_PROFILER_API cublasStatus_t cublasLtMatmul(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
                                                const void* alpha, const void* A,
                                                cublasLtMatrixLayout_t a, const void* B,
                                                cublasLtMatrixLayout_t b, const void* beta,
                                                const void* C, cublasLtMatrixLayout_t c, void* D,
                                                cublasLtMatrixLayout_t d,
                                                const cublasLtMatmulAlgo_t* algo, void* workspace,
                                                size_t workspace_bytes, cudaStream_t stream) {
  static auto real = next<decltype(&cublasLtMatmul)>("cublasLtMatmul");
  if (!real) return CUBLAS_STATUS_NOT_INITIALIZED;
  const LtCall lt = lt_call(desc, a, d);
  Call call(lt.api.empty() ? "" : lt.api.c_str(), lt.api.empty() ? -1 : lt.dtype, lt.m, lt.n, lt.k,
            lt.batch);
  return real(handle, desc, alpha, A, a, B, b, beta, C, c, D, d, algo, workspace, workspace_bytes,
              stream);
}
