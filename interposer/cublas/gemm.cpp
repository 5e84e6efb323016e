// cuBLAS GEMMs: the typed S/D/H/C/Z routines, their batched and strided-batched forms, the Ex
// routines, each in its 32- and 64-bit-index variant. Each call is validated like cuBLAS does
// and becomes one timed op on the handle's stream, its shape feeding the GEMM model.
//
// Complex GEMMs do four real multiply-adds per element product: they are timed as a real GEMM
// of the same element type with k x 4 (k x 3 for the 3m routines, which use Gauss's trick).

#include <cublas_v2.h>

#include <algorithm>

#include "handle.h"

using namespace seer::cublas;

namespace {

struct Spec {
  int dtype;     // element type
  int compute;   // math pipe
  int k_factor;  // real GEMMs per element product
  int c_bytes;   // bytes of one C element
  bool fp32;     // FP32 inputs: TF32 tensor cores when the math mode allows
};
constexpr Spec kS{kF32, kF32, 1, 4, true};
constexpr Spec kD{kF64, kF64, 1, 8, false};
constexpr Spec kH{kF16, kF16, 1, 2, false};
constexpr Spec kC{kF32, kF32, 4, 8, true};
constexpr Spec kZ{kF64, kF64, 4, 16, false};
constexpr Spec kC3m{kF32, kF32, 3, 8, true};
constexpr Spec kZ3m{kF64, kF64, 3, 16, false};

bool valid_op(cublasOperation_t t) {
  return t == CUBLAS_OP_N || t == CUBLAS_OP_T || t == CUBLAS_OP_C;
}

// cuBLAS's argument checks, in its order: the handle, then the shape.
cublasStatus_t check(cublasContext* h, cublasOperation_t ta, cublasOperation_t tb, int64_t m,
                     int64_t n, int64_t k, const void* alpha, int64_t lda, int64_t ldb,
                     const void* beta, int64_t ldc, int64_t batch) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!valid_op(ta) || !valid_op(tb) || m < 0 || n < 0 || k < 0 || batch < 0) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  if (lda < std::max<int64_t>(1, ta == CUBLAS_OP_N ? m : k) ||
      ldb < std::max<int64_t>(1, tb == CUBLAS_OP_N ? k : n) || ldc < std::max<int64_t>(1, m)) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  if (!alpha || !beta) return CUBLAS_STATUS_INVALID_VALUE;
  return CUBLAS_STATUS_SUCCESS;
}

// Enqueues a checked GEMM. An empty product (k == 0) only scales C: a memory-bound op.
cublasStatus_t submit(cublasContext* h, const char* api, Spec s, int64_t m, int64_t n, int64_t k,
                      int64_t batch) {
  if (m == 0 || n == 0 || batch == 0) return CUBLAS_STATUS_SUCCESS;
  if (s.fp32 && tf32_math(h)) s.dtype = s.compute = kTF32;
  LibraryOp op;
  op.api = api;
  op.m = m;
  op.n = n;
  op.batch = batch;
  op.dtype = s.dtype;
  op.compute = s.compute;
  if (k == 0) {
    op.gemm = false;
    op.bytes = 2.0 * static_cast<double>(m) * static_cast<double>(n) * s.c_bytes *
               static_cast<double>(batch);
  } else {
    op.k = k * s.k_factor;
  }
  return enqueue(h->stream, op);
}

cublasStatus_t typed(cublasHandle_t handle, const char* api, Spec s, cublasOperation_t ta,
                     cublasOperation_t tb, int64_t m, int64_t n, int64_t k, const void* alpha,
                     int64_t lda, int64_t ldb, const void* beta, int64_t ldc, int64_t batch) {
  cublasContext* h = live(handle);
  if (cublasStatus_t st = check(h, ta, tb, m, n, k, alpha, lda, ldb, beta, ldc, batch)) return st;
  return submit(h, api, s, m, n, k, batch);
}

// The type combinations cublasGemmEx documents for each compute type.
bool ex_supported(cublasComputeType_t c, cudaDataType a, cudaDataType b, cudaDataType out) {
  if (a != b) return false;
  switch (c) {
    case CUBLAS_COMPUTE_16F:
    case CUBLAS_COMPUTE_16F_PEDANTIC:
      return a == CUDA_R_16F && out == CUDA_R_16F;
    case CUBLAS_COMPUTE_32I:
    case CUBLAS_COMPUTE_32I_PEDANTIC:
      return a == CUDA_R_8I && out == CUDA_R_32I;
    case CUBLAS_COMPUTE_32F:
    case CUBLAS_COMPUTE_32F_PEDANTIC:
      switch (a) {
        case CUDA_R_16BF:
        case CUDA_R_16F:
          return out == a || out == CUDA_R_32F;
        case CUDA_R_8I:
        case CUDA_R_32F:
          return out == CUDA_R_32F;
        case CUDA_C_8I:
        case CUDA_C_32F:
          return out == CUDA_C_32F;
        default:
          return false;
      }
    case CUBLAS_COMPUTE_32F_FAST_16F:
    case CUBLAS_COMPUTE_32F_FAST_16BF:
    case CUBLAS_COMPUTE_32F_FAST_TF32:
    case CUBLAS_COMPUTE_32F_EMULATED_16BFX9:
      return (a == CUDA_R_32F && out == CUDA_R_32F) || (a == CUDA_C_32F && out == CUDA_C_32F);
    case CUBLAS_COMPUTE_64F:
    case CUBLAS_COMPUTE_64F_PEDANTIC:
    case CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT:
      return (a == CUDA_R_64F && out == CUDA_R_64F) || (a == CUDA_C_64F && out == CUDA_C_64F);
  }
  return false;
}

cublasStatus_t ex(cublasHandle_t handle, const char* api, cublasOperation_t ta,
                  cublasOperation_t tb, int64_t m, int64_t n, int64_t k, const void* alpha,
                  cudaDataType a_type, int64_t lda, cudaDataType b_type, int64_t ldb,
                  const void* beta, cudaDataType c_type, int64_t ldc, int64_t batch,
                  int raw_compute) {
  cublasContext* h = live(handle);
  if (cublasStatus_t st = check(h, ta, tb, m, n, k, alpha, lda, ldb, beta, ldc, batch)) return st;
  cublasComputeType_t compute;
  if (!normalize_compute(raw_compute, &compute)) return CUBLAS_STATUS_INVALID_VALUE;
  if (!ex_supported(compute, a_type, b_type, c_type)) return CUBLAS_STATUS_NOT_SUPPORTED;
  const TypeInfo a = type_info(a_type);
  const bool tf32 = tf32_math(h);
  const Spec s{element_dtype(a_type, compute, tf32), math_pipe(a_type, compute, tf32),
               a.complex ? 4 : 1, type_info(c_type).bytes, false};
  return submit(h, api, s, m, n, k, batch);
}

// cublasSgemmEx: FP32 compute and scaling, inputs of lower precision.
cublasStatus_t sgemm_ex(cublasHandle_t handle, cublasOperation_t ta, cublasOperation_t tb,
                        int64_t m, int64_t n, int64_t k, const void* alpha, cudaDataType a_type,
                        int64_t lda, cudaDataType b_type, int64_t ldb, const void* beta,
                        cudaDataType c_type, int64_t ldc) {
  cublasContext* h = live(handle);
  if (cublasStatus_t st = check(h, ta, tb, m, n, k, alpha, lda, ldb, beta, ldc, 1)) return st;
  if (!ex_supported(CUBLAS_COMPUTE_32F, a_type, b_type, c_type) || type_info(a_type).complex) {
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  const bool tf32 = tf32_math(h);
  const Spec s{element_dtype(a_type, CUBLAS_COMPUTE_32F, tf32),
               math_pipe(a_type, CUBLAS_COMPUTE_32F, tf32), 1, type_info(c_type).bytes, false};
  return submit(h, "cublasSgemmEx", s, m, n, k, 1);
}

}  // namespace

// ---- Typed GEMMs ----

#define SEER_GEMM(NAME, API, SPEC, T, I)                                                           \
  SEER_CUBLAS_API cublasStatus_t NAME(                                                             \
      cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, I n, I k, const T* alpha, \
      const T* /*A*/, I lda, const T* /*B*/, I ldb, const T* beta, T* /*C*/, I ldc) {              \
    return typed(h, API, SPEC, ta, tb, m, n, k, alpha, lda, ldb, beta, ldc, 1);                    \
  }

#define SEER_GEMM_BATCHED(NAME, API, SPEC, T, I)                                                \
  SEER_CUBLAS_API cublasStatus_t NAME(cublasHandle_t h, cublasOperation_t ta,                   \
                                      cublasOperation_t tb, I m, I n, I k, const T* alpha,      \
                                      const T* const /*A*/[], I lda, const T* const /*B*/[],    \
                                      I ldb, const T* beta, T* const /*C*/[], I ldc, I batch) { \
    return typed(h, API, SPEC, ta, tb, m, n, k, alpha, lda, ldb, beta, ldc, batch);             \
  }

#define SEER_GEMM_STRIDED(NAME, API, SPEC, T, I)                                                   \
  SEER_CUBLAS_API cublasStatus_t NAME(                                                             \
      cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, I n, I k, const T* alpha, \
      const T* /*A*/, I lda, long long /*stride_a*/, const T* /*B*/, I ldb,                        \
      long long /*stride_b*/, const T* beta, T* /*C*/, I ldc, long long /*stride_c*/, I batch) {   \
    return typed(h, API, SPEC, ta, tb, m, n, k, alpha, lda, ldb, beta, ldc, batch);                \
  }

// All three forms, 32- and 64-bit indices.
#define SEER_GEMM_FAMILY(PLAIN, PREFIX, API, SPEC, T)                           \
  SEER_GEMM(PLAIN, API, SPEC, T, int)                                           \
  SEER_GEMM(PLAIN##_64, API, SPEC, T, int64_t)                                  \
  SEER_GEMM_BATCHED(PREFIX##Batched, API "Batched", SPEC, T, int)               \
  SEER_GEMM_BATCHED(PREFIX##Batched_64, API "Batched", SPEC, T, int64_t)        \
  SEER_GEMM_STRIDED(PREFIX##StridedBatched, API "StridedBatched", SPEC, T, int) \
  SEER_GEMM_STRIDED(PREFIX##StridedBatched_64, API "StridedBatched", SPEC, T, int64_t)

SEER_GEMM_FAMILY(cublasSgemm_v2, cublasSgemm, "cublasSgemm", kS, float)
SEER_GEMM_FAMILY(cublasDgemm_v2, cublasDgemm, "cublasDgemm", kD, double)
SEER_GEMM_FAMILY(cublasHgemm, cublasHgemm, "cublasHgemm", kH, __half)
SEER_GEMM_FAMILY(cublasCgemm_v2, cublasCgemm, "cublasCgemm", kC, cuComplex)
SEER_GEMM_FAMILY(cublasZgemm_v2, cublasZgemm, "cublasZgemm", kZ, cuDoubleComplex)
SEER_GEMM_FAMILY(cublasCgemm3m, cublasCgemm3m, "cublasCgemm3m", kC3m, cuComplex)
SEER_GEMM(cublasZgemm3m, "cublasZgemm3m", kZ3m, cuDoubleComplex, int)
SEER_GEMM(cublasZgemm3m_64, "cublasZgemm3m", kZ3m, cuDoubleComplex, int64_t)

// ---- Ex GEMMs ----

SEER_CUBLAS_API cublasStatus_t cublasSgemmEx(cublasHandle_t h, cublasOperation_t ta,
                                             cublasOperation_t tb, int m, int n, int k,
                                             const float* alpha, const void* /*A*/,
                                             cudaDataType a_type, int lda, const void* /*B*/,
                                             cudaDataType b_type, int ldb, const float* beta,
                                             void* /*C*/, cudaDataType c_type, int ldc) {
  return sgemm_ex(h, ta, tb, m, n, k, alpha, a_type, lda, b_type, ldb, beta, c_type, ldc);
}

SEER_CUBLAS_API cublasStatus_t cublasSgemmEx_64(cublasHandle_t h, cublasOperation_t ta,
                                                cublasOperation_t tb, int64_t m, int64_t n,
                                                int64_t k, const float* alpha, const void* /*A*/,
                                                cudaDataType a_type, int64_t lda, const void* /*B*/,
                                                cudaDataType b_type, int64_t ldb, const float* beta,
                                                void* /*C*/, cudaDataType c_type, int64_t ldc) {
  return sgemm_ex(h, ta, tb, m, n, k, alpha, a_type, lda, b_type, ldb, beta, c_type, ldc);
}

#define SEER_GEMM_EX(NAME, I)                                                                    \
  SEER_CUBLAS_API cublasStatus_t NAME(                                                           \
      cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, I n, I k,               \
      const void* alpha, const void* /*A*/, cudaDataType a_type, I lda, const void* /*B*/,       \
      cudaDataType b_type, I ldb, const void* beta, void* /*C*/, cudaDataType c_type, I ldc,     \
      cublasComputeType_t compute, cublasGemmAlgo_t /*algo*/) {                                  \
    return ex(h, "cublasGemmEx", ta, tb, m, n, k, alpha, a_type, lda, b_type, ldb, beta, c_type, \
              ldc, 1, compute);                                                                  \
  }

#define SEER_GEMM_BATCHED_EX(NAME, I)                                                           \
  SEER_CUBLAS_API cublasStatus_t NAME(                                                          \
      cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, I n, I k,              \
      const void* alpha, const void* const /*A*/[], cudaDataType a_type, I lda,                 \
      const void* const /*B*/[], cudaDataType b_type, I ldb, const void* beta,                  \
      void* const /*C*/[], cudaDataType c_type, I ldc, I batch, cublasComputeType_t compute,    \
      cublasGemmAlgo_t /*algo*/) {                                                              \
    return ex(h, "cublasGemmBatchedEx", ta, tb, m, n, k, alpha, a_type, lda, b_type, ldb, beta, \
              c_type, ldc, batch, compute);                                                     \
  }

#define SEER_GEMM_STRIDED_EX(NAME, I)                                                            \
  SEER_CUBLAS_API cublasStatus_t NAME(                                                           \
      cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, I n, I k,               \
      const void* alpha, const void* /*A*/, cudaDataType a_type, I lda, long long /*sa*/,        \
      const void* /*B*/, cudaDataType b_type, I ldb, long long /*sb*/, const void* beta,         \
      void* /*C*/, cudaDataType c_type, I ldc, long long /*sc*/, I batch,                        \
      cublasComputeType_t compute, cublasGemmAlgo_t /*algo*/) {                                  \
    return ex(h, "cublasGemmStridedBatchedEx", ta, tb, m, n, k, alpha, a_type, lda, b_type, ldb, \
              beta, c_type, ldc, batch, compute);                                                \
  }

SEER_GEMM_EX(cublasGemmEx, int)
SEER_GEMM_EX(cublasGemmEx_64, int64_t)
SEER_GEMM_BATCHED_EX(cublasGemmBatchedEx, int)
SEER_GEMM_BATCHED_EX(cublasGemmBatchedEx_64, int64_t)
SEER_GEMM_STRIDED_EX(cublasGemmStridedBatchedEx, int)
SEER_GEMM_STRIDED_EX(cublasGemmStridedBatchedEx_64, int64_t)
