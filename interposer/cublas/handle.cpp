// cuBLAS handles and their settings, versions, status texts, the logger, and the host <-> device
// vector and matrix helpers (cublasSetVector & co, done with Seer's cudaMemcpy).

#include "handle.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <unordered_set>
#include <vector>

#include "core.h"

using namespace seer::cublas;

namespace {

std::mutex g_mu;
std::unordered_set<const cublasContext*>& handles() {
  static auto* s = new std::unordered_set<const cublasContext*>();
  return *s;
}
cublasLogCallback g_logger = nullptr;

// One copy of `bytes` between host and device, timed like cudaMemcpy(Async). The contiguous range
// lies inside the strided one on both sides (increments and leading dimensions are at least
// the element size apart). Device-to-host copies write zeros, but only into the elements: the
// bytes between strided host elements are kept.
cublasStatus_t copy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                    bool strided_host, size_t count, size_t elem_bytes, size_t host_stride_elems,
                    size_t run_elems, const cudaStream_t* stream) {
  if (bytes == 0) return CUBLAS_STATUS_SUCCESS;
  std::vector<char> keep;
  if (kind == cudaMemcpyDeviceToHost && strided_host) {
    keep.assign(static_cast<char*>(dst), static_cast<char*>(dst) + bytes);
  }
  const cudaError_t e =
      stream ? cudaMemcpyAsync(dst, src, bytes, kind, *stream) : cudaMemcpy(dst, src, bytes, kind);
  if (e != cudaSuccess) return CUBLAS_STATUS_MAPPING_ERROR;
  if (!keep.empty()) {
    std::memcpy(dst, keep.data(), bytes);
    // `count` runs of `run_elems` contiguous elements, `host_stride_elems` apart.
    for (size_t i = 0; i < count; ++i) {
      std::memset(static_cast<char*>(dst) + i * host_stride_elems * elem_bytes, 0,
                  run_elems * elem_bytes);
    }
  }
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t vector_copy(int64_t n, int64_t elem, const void* x, int64_t incx, void* y,
                           int64_t incy, cudaMemcpyKind kind, const cudaStream_t* stream) {
  if (n < 0 || elem <= 0 || incx <= 0 || incy <= 0) return CUBLAS_STATUS_INVALID_VALUE;
  const int64_t host_inc = kind == cudaMemcpyDeviceToHost ? incy : incx;
  return copy(y, x, static_cast<size_t>(n * elem), kind, host_inc != 1, static_cast<size_t>(n),
              static_cast<size_t>(elem), static_cast<size_t>(host_inc), 1, stream);
}

cublasStatus_t matrix_copy(int64_t rows, int64_t cols, int64_t elem, const void* a, int64_t lda,
                           void* b, int64_t ldb, cudaMemcpyKind kind, const cudaStream_t* stream) {
  if (rows < 0 || cols < 0 || elem <= 0 || lda < std::max<int64_t>(1, rows) ||
      ldb < std::max<int64_t>(1, rows)) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  const int64_t host_ld = kind == cudaMemcpyDeviceToHost ? ldb : lda;
  return copy(b, a, static_cast<size_t>(rows * cols * elem), kind, host_ld != rows,
              static_cast<size_t>(cols), static_cast<size_t>(elem), static_cast<size_t>(host_ld),
              static_cast<size_t>(rows), stream);
}

}  // namespace

namespace seer::cublas {

cublasContext* live(cublasHandle_t h) {
  if (!h) return nullptr;
  std::lock_guard<std::mutex> lock(g_mu);
  return handles().count(h) ? h : nullptr;
}

void wait_for_host_result(cublasContext* h) { cudaStreamSynchronize(h->stream); }

}  // namespace seer::cublas

#define LIVE_OR_FAIL(h)         \
  cublasContext* ctx = live(h); \
  if (!ctx) return CUBLAS_STATUS_NOT_INITIALIZED;

SEER_CUBLAS_API cublasStatus_t cublasCreate_v2(cublasHandle_t* handle) {
  if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
  if (!joined()) return CUBLAS_STATUS_NOT_INITIALIZED;
  charge_host(other_call_cost());
  auto* h = new cublasContext();
  h->device = seer::client::Core::instance().thread().device;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    handles().insert(h);
  }
  *handle = h;
  return CUBLAS_STATUS_SUCCESS;
}

// Like the real library, destroying a handle waits for the device (cudaDeviceSynchronize).
SEER_CUBLAS_API cublasStatus_t cublasDestroy_v2(cublasHandle_t handle) {
  {
    std::lock_guard<std::mutex> lock(g_mu);
    if (!handle || !handles().erase(handle)) return CUBLAS_STATUS_NOT_INITIALIZED;
  }
  delete handle;
  cudaDeviceSynchronize();
  return CUBLAS_STATUS_SUCCESS;
}

SEER_CUBLAS_API cublasStatus_t cublasGetVersion_v2(cublasHandle_t /*handle*/, int* version) {
  if (!version) return CUBLAS_STATUS_INVALID_VALUE;
  *version = CUBLAS_VERSION;
  return CUBLAS_STATUS_SUCCESS;
}

SEER_CUBLAS_API cublasStatus_t cublasGetProperty(libraryPropertyType type, int* value) {
  if (!value) return CUBLAS_STATUS_INVALID_VALUE;
  switch (type) {
    case MAJOR_VERSION:
      *value = CUBLAS_VER_MAJOR;
      return CUBLAS_STATUS_SUCCESS;
    case MINOR_VERSION:
      *value = CUBLAS_VER_MINOR;
      return CUBLAS_STATUS_SUCCESS;
    case PATCH_LEVEL:
      *value = CUBLAS_VER_PATCH;
      return CUBLAS_STATUS_SUCCESS;
  }
  return CUBLAS_STATUS_INVALID_VALUE;
}

SEER_CUBLAS_API size_t cublasGetCudartVersion(void) { return kCudartVersion; }

SEER_CUBLAS_API const char* cublasGetStatusName(cublasStatus_t status) {
  return status_name(status);
}

SEER_CUBLAS_API const char* cublasGetStatusString(cublasStatus_t status) {
  return status_string(status);
}

// Setting a stream resets the workspace to the library's own pool, as in cuBLAS.
SEER_CUBLAS_API cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream) {
  LIVE_OR_FAIL(handle);
  ctx->stream = stream;
  ctx->workspace = nullptr;
  ctx->workspace_bytes = 0;
  return CUBLAS_STATUS_SUCCESS;
}

SEER_CUBLAS_API cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t* stream) {
  LIVE_OR_FAIL(handle);
  if (!stream) return CUBLAS_STATUS_INVALID_VALUE;
  *stream = ctx->stream;
  return CUBLAS_STATUS_SUCCESS;
}

SEER_CUBLAS_API cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void* workspace,
                                                     size_t bytes) {
  LIVE_OR_FAIL(handle);
  if (reinterpret_cast<uintptr_t>(workspace) % 256 != 0) return CUBLAS_STATUS_INVALID_VALUE;
  ctx->workspace = workspace;
  ctx->workspace_bytes = workspace ? bytes : 0;
  return CUBLAS_STATUS_SUCCESS;
}

SEER_CUBLAS_API cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t handle,
                                                       cublasPointerMode_t* mode) {
  LIVE_OR_FAIL(handle);
  if (!mode) return CUBLAS_STATUS_INVALID_VALUE;
  *mode = ctx->pointer_mode;
  return CUBLAS_STATUS_SUCCESS;
}

SEER_CUBLAS_API cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t handle,
                                                       cublasPointerMode_t mode) {
  LIVE_OR_FAIL(handle);
  if (mode != CUBLAS_POINTER_MODE_HOST && mode != CUBLAS_POINTER_MODE_DEVICE) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  ctx->pointer_mode = mode;
  return CUBLAS_STATUS_SUCCESS;
}

SEER_CUBLAS_API cublasStatus_t cublasGetAtomicsMode(cublasHandle_t handle,
                                                    cublasAtomicsMode_t* mode) {
  LIVE_OR_FAIL(handle);
  if (!mode) return CUBLAS_STATUS_INVALID_VALUE;
  *mode = ctx->atomics_mode;
  return CUBLAS_STATUS_SUCCESS;
}

SEER_CUBLAS_API cublasStatus_t cublasSetAtomicsMode(cublasHandle_t handle,
                                                    cublasAtomicsMode_t mode) {
  LIVE_OR_FAIL(handle);
  if (mode != CUBLAS_ATOMICS_NOT_ALLOWED && mode != CUBLAS_ATOMICS_ALLOWED) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  ctx->atomics_mode = mode;
  return CUBLAS_STATUS_SUCCESS;
}

SEER_CUBLAS_API cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t* mode) {
  LIVE_OR_FAIL(handle);
  if (!mode) return CUBLAS_STATUS_INVALID_VALUE;
  *mode = ctx->math_mode;
  return CUBLAS_STATUS_SUCCESS;
}

// A base mode, optionally with CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION.
SEER_CUBLAS_API cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode) {
  LIVE_OR_FAIL(handle);
  const unsigned base = static_cast<unsigned>(mode) & ~16u;
  switch (base) {
    case CUBLAS_DEFAULT_MATH:
    case CUBLAS_TENSOR_OP_MATH:
    case CUBLAS_PEDANTIC_MATH:
    case CUBLAS_TF32_TENSOR_OP_MATH:
    case CUBLAS_FP32_EMULATED_BF16X9_MATH:
    case CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH:
      ctx->math_mode = mode;
      return CUBLAS_STATUS_SUCCESS;
    default:
      return CUBLAS_STATUS_INVALID_VALUE;
  }
}

SEER_CUBLAS_API cublasStatus_t cublasGetSmCountTarget(cublasHandle_t handle, int* count) {
  LIVE_OR_FAIL(handle);
  if (!count) return CUBLAS_STATUS_INVALID_VALUE;
  *count = ctx->sm_count_target;
  return CUBLAS_STATUS_SUCCESS;
}

SEER_CUBLAS_API cublasStatus_t cublasSetSmCountTarget(cublasHandle_t handle, int count) {
  LIVE_OR_FAIL(handle);
  if (count < 0) return CUBLAS_STATUS_INVALID_VALUE;
  ctx->sm_count_target = count;
  return CUBLAS_STATUS_SUCCESS;
}

SEER_CUBLAS_API cublasStatus_t cublasGetEmulationStrategy(cublasHandle_t handle,
                                                          cublasEmulationStrategy_t* strategy) {
  LIVE_OR_FAIL(handle);
  if (!strategy) return CUBLAS_STATUS_INVALID_VALUE;
  *strategy = ctx->emulation_strategy;
  return CUBLAS_STATUS_SUCCESS;
}

SEER_CUBLAS_API cublasStatus_t cublasSetEmulationStrategy(cublasHandle_t handle,
                                                          cublasEmulationStrategy_t strategy) {
  LIVE_OR_FAIL(handle);
  if (strategy < CUBLAS_EMULATION_STRATEGY_DEFAULT || strategy > CUBLAS_EMULATION_STRATEGY_EAGER) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  ctx->emulation_strategy = strategy;
  return CUBLAS_STATUS_SUCCESS;
}

// Seer logs nothing of its own: the logger settings are accepted and kept.
SEER_CUBLAS_API cublasStatus_t cublasLoggerConfigure(int /*on*/, int /*stdout*/, int /*stderr*/,
                                                     const char* /*file*/) {
  return CUBLAS_STATUS_SUCCESS;
}

SEER_CUBLAS_API cublasStatus_t cublasSetLoggerCallback(cublasLogCallback callback) {
  g_logger = callback;
  return CUBLAS_STATUS_SUCCESS;
}

SEER_CUBLAS_API cublasStatus_t cublasGetLoggerCallback(cublasLogCallback* callback) {
  if (!callback) return CUBLAS_STATUS_INVALID_VALUE;
  *callback = g_logger;
  return CUBLAS_STATUS_SUCCESS;
}

// ---- Host <-> device helpers ----

SEER_CUBLAS_API cublasStatus_t cublasSetVector(int n, int elem, const void* x, int incx, void* y,
                                               int incy) {
  return vector_copy(n, elem, x, incx, y, incy, cudaMemcpyHostToDevice, nullptr);
}
SEER_CUBLAS_API cublasStatus_t cublasSetVector_64(int64_t n, int64_t elem, const void* x,
                                                  int64_t incx, void* y, int64_t incy) {
  return vector_copy(n, elem, x, incx, y, incy, cudaMemcpyHostToDevice, nullptr);
}
SEER_CUBLAS_API cublasStatus_t cublasGetVector(int n, int elem, const void* x, int incx, void* y,
                                               int incy) {
  return vector_copy(n, elem, x, incx, y, incy, cudaMemcpyDeviceToHost, nullptr);
}
SEER_CUBLAS_API cublasStatus_t cublasGetVector_64(int64_t n, int64_t elem, const void* x,
                                                  int64_t incx, void* y, int64_t incy) {
  return vector_copy(n, elem, x, incx, y, incy, cudaMemcpyDeviceToHost, nullptr);
}
SEER_CUBLAS_API cublasStatus_t cublasSetVectorAsync(int n, int elem, const void* x, int incx,
                                                    void* y, int incy, cudaStream_t stream) {
  return vector_copy(n, elem, x, incx, y, incy, cudaMemcpyHostToDevice, &stream);
}
SEER_CUBLAS_API cublasStatus_t cublasSetVectorAsync_64(int64_t n, int64_t elem, const void* x,
                                                       int64_t incx, void* y, int64_t incy,
                                                       cudaStream_t stream) {
  return vector_copy(n, elem, x, incx, y, incy, cudaMemcpyHostToDevice, &stream);
}
SEER_CUBLAS_API cublasStatus_t cublasGetVectorAsync(int n, int elem, const void* x, int incx,
                                                    void* y, int incy, cudaStream_t stream) {
  return vector_copy(n, elem, x, incx, y, incy, cudaMemcpyDeviceToHost, &stream);
}
SEER_CUBLAS_API cublasStatus_t cublasGetVectorAsync_64(int64_t n, int64_t elem, const void* x,
                                                       int64_t incx, void* y, int64_t incy,
                                                       cudaStream_t stream) {
  return vector_copy(n, elem, x, incx, y, incy, cudaMemcpyDeviceToHost, &stream);
}

SEER_CUBLAS_API cublasStatus_t cublasSetMatrix(int rows, int cols, int elem, const void* a, int lda,
                                               void* b, int ldb) {
  return matrix_copy(rows, cols, elem, a, lda, b, ldb, cudaMemcpyHostToDevice, nullptr);
}
SEER_CUBLAS_API cublasStatus_t cublasSetMatrix_64(int64_t rows, int64_t cols, int64_t elem,
                                                  const void* a, int64_t lda, void* b,
                                                  int64_t ldb) {
  return matrix_copy(rows, cols, elem, a, lda, b, ldb, cudaMemcpyHostToDevice, nullptr);
}
SEER_CUBLAS_API cublasStatus_t cublasGetMatrix(int rows, int cols, int elem, const void* a, int lda,
                                               void* b, int ldb) {
  return matrix_copy(rows, cols, elem, a, lda, b, ldb, cudaMemcpyDeviceToHost, nullptr);
}
SEER_CUBLAS_API cublasStatus_t cublasGetMatrix_64(int64_t rows, int64_t cols, int64_t elem,
                                                  const void* a, int64_t lda, void* b,
                                                  int64_t ldb) {
  return matrix_copy(rows, cols, elem, a, lda, b, ldb, cudaMemcpyDeviceToHost, nullptr);
}
SEER_CUBLAS_API cublasStatus_t cublasSetMatrixAsync(int rows, int cols, int elem, const void* a,
                                                    int lda, void* b, int ldb,
                                                    cudaStream_t stream) {
  return matrix_copy(rows, cols, elem, a, lda, b, ldb, cudaMemcpyHostToDevice, &stream);
}
SEER_CUBLAS_API cublasStatus_t cublasSetMatrixAsync_64(int64_t rows, int64_t cols, int64_t elem,
                                                       const void* a, int64_t lda, void* b,
                                                       int64_t ldb, cudaStream_t stream) {
  return matrix_copy(rows, cols, elem, a, lda, b, ldb, cudaMemcpyHostToDevice, &stream);
}
SEER_CUBLAS_API cublasStatus_t cublasGetMatrixAsync(int rows, int cols, int elem, const void* a,
                                                    int lda, void* b, int ldb,
                                                    cudaStream_t stream) {
  return matrix_copy(rows, cols, elem, a, lda, b, ldb, cudaMemcpyDeviceToHost, &stream);
}
SEER_CUBLAS_API cublasStatus_t cublasGetMatrixAsync_64(int64_t rows, int64_t cols, int64_t elem,
                                                       const void* a, int64_t lda, void* b,
                                                       int64_t ldb, cudaStream_t stream) {
  return matrix_copy(rows, cols, elem, a, lda, b, ldb, cudaMemcpyDeviceToHost, &stream);
}
