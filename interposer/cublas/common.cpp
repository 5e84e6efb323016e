#include "common.h"

#include "core.h"
#include "cuda_state.h"
#include "graph.h"

namespace seer::cublas {

using client::ApiCall;
using client::Core;
using client::CudaState;
using client::PodRecord;
using client::StreamObj;
using client::ThreadState;

TypeInfo type_info(cudaDataType t) {
  auto real = [](int dtype, int bytes) { return TypeInfo{true, false, dtype, bytes}; };
  auto cplx = [](int dtype, int bytes) { return TypeInfo{true, true, dtype, 2 * bytes}; };
  switch (t) {
    case CUDA_R_64F:
      return real(kF64, 8);
    case CUDA_C_64F:
      return cplx(kF64, 8);
    case CUDA_R_32F:
      return real(kF32, 4);
    case CUDA_C_32F:
      return cplx(kF32, 4);
    case CUDA_R_16F:
      return real(kF16, 2);
    case CUDA_C_16F:
      return cplx(kF16, 2);
    case CUDA_R_16BF:
      return real(kBF16, 2);
    case CUDA_C_16BF:
      return cplx(kBF16, 2);
    case CUDA_R_8F_E4M3:
    case CUDA_R_8F_E5M2:
    case CUDA_R_8F_UE8M0:
    case CUDA_R_6F_E2M3:  // FP6 and FP4 run on the FP8 (or faster) tensor-core path
    case CUDA_R_6F_E3M2:
    case CUDA_R_4F_E2M1:
      return real(kF8, 1);
    case CUDA_R_8I:
    case CUDA_R_8U:
      return real(kI8, 1);
    case CUDA_C_8I:
    case CUDA_C_8U:
      return cplx(kI8, 1);
    case CUDA_R_32I:
    case CUDA_R_32U:
      return real(kI8, 4);  // only ever an output/accumulator type of int8 GEMMs
    case CUDA_C_32I:
    case CUDA_C_32U:
      return cplx(kI8, 4);
    default:
      return TypeInfo{};
  }
}

bool normalize_compute(int raw, cublasComputeType_t* out) {
  switch (raw) {
    case CUBLAS_COMPUTE_16F:
    case CUBLAS_COMPUTE_16F_PEDANTIC:
    case CUBLAS_COMPUTE_32F:
    case CUBLAS_COMPUTE_32F_PEDANTIC:
    case CUBLAS_COMPUTE_32F_FAST_16F:
    case CUBLAS_COMPUTE_32F_FAST_16BF:
    case CUBLAS_COMPUTE_32F_FAST_TF32:
    case CUBLAS_COMPUTE_32F_EMULATED_16BFX9:
    case CUBLAS_COMPUTE_64F:
    case CUBLAS_COMPUTE_64F_PEDANTIC:
    case CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT:
    case CUBLAS_COMPUTE_32I:
    case CUBLAS_COMPUTE_32I_PEDANTIC:
      *out = static_cast<cublasComputeType_t>(raw);
      return true;
    // The pre-CUDA 11 convention: the accumulator's cudaDataType.
    case CUDA_R_16F:
    case CUDA_C_16F:
      *out = CUBLAS_COMPUTE_16F;
      return true;
    case CUDA_R_32F:
    case CUDA_C_32F:
      *out = CUBLAS_COMPUTE_32F;
      return true;
    case CUDA_R_64F:
    case CUDA_C_64F:
      *out = CUBLAS_COMPUTE_64F;
      return true;
    case CUDA_R_32I:
    case CUDA_C_32I:
      *out = CUBLAS_COMPUTE_32I;
      return true;
    default:
      return false;
  }
}

int element_dtype(cudaDataType a, cublasComputeType_t c, bool tf32_math) {
  const TypeInfo t = type_info(a);
  if (t.dtype != kF32) return t.dtype;
  const bool tf32 = c == CUBLAS_COMPUTE_32F_FAST_TF32 || (c == CUBLAS_COMPUTE_32F && tf32_math);
  return tf32 ? kTF32 : kF32;
}

int math_pipe(cudaDataType a, cublasComputeType_t c, bool tf32_math) {
  const TypeInfo t = type_info(a);
  if (t.dtype != kF32) return t.dtype;
  switch (c) {
    case CUBLAS_COMPUTE_32F_FAST_TF32:
      return kTF32;
    case CUBLAS_COMPUTE_32F_FAST_16F:
      return kF16;
    case CUBLAS_COMPUTE_32F_FAST_16BF:
    case CUBLAS_COMPUTE_32F_EMULATED_16BFX9:
      return kBF16;
    case CUBLAS_COMPUTE_32F:
      return tf32_math ? kTF32 : kF32;
    default:
      return kF32;
  }
}

bool joined() { return Core::instance().ensure_joined(); }

cublasStatus_t enqueue(const void* stream, const LibraryOp& op) {
  Core& core = Core::instance();
  if (!core.ensure_joined()) return CUBLAS_STATUS_NOT_INITIALIZED;
  ApiCall call(core, core.costs().launch());
  ThreadState& ts = call.ts();
  StreamObj* s = CudaState::instance().resolve_stream(ts, stream, false);
  if (!s) return CUBLAS_STATUS_EXECUTION_FAILED;
  auto* l = new wire::LibraryCall();
  l->set_stream(s->id);
  l->set_api(op.api);
  l->set_m(op.m);
  l->set_n(op.n);
  l->set_k(op.k);
  l->set_batch(op.batch);
  l->set_dtype(op.dtype);
  l->set_compute(op.compute);
  l->set_gemm(op.gemm);
  l->set_bytes(op.bytes);
  PodRecord r;
  r.type = PodRecord::kLibrary;
  r.library = l;
  // A stream being captured into a CUDA graph takes the call as a node instead.
  if (seer::client::graph::submit(ts, s, r) != cudaSuccess) return CUBLAS_STATUS_EXECUTION_FAILED;
  return CUBLAS_STATUS_SUCCESS;
}

void charge_host(int64_t ns) {
  Core& core = Core::instance();
  if (!core.ensure_joined()) return;
  ApiCall call(core, ns);
}

int64_t other_call_cost() {
  Core& core = Core::instance();
  return core.ensure_joined() ? core.costs().other_call() : 0;
}

int current_sm_count() {
  Core& core = Core::instance();
  if (!core.ensure_joined()) return 132;
  const int device = core.thread().device;
  const auto& w = core.welcome();
  if (device < 0 || device >= w.gpus_size() || w.gpus(device).sm_count() <= 0) return 132;
  return w.gpus(device).sm_count();
}

const char* status_name(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_SUCCESS:
      return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED:
      return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED:
      return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE:
      return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH:
      return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR:
      return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED:
      return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR:
      return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED:
      return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR:
      return "CUBLAS_STATUS_LICENSE_ERROR";
  }
  return "CUBLAS_STATUS_UNKNOWN";
}

// The texts of the real 13.1 libraries.
const char* status_string(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_SUCCESS:
      return "success";
    case CUBLAS_STATUS_NOT_INITIALIZED:
      return "the library was not initialized";
    case CUBLAS_STATUS_ALLOC_FAILED:
      return "the resource allocation failed";
    case CUBLAS_STATUS_INVALID_VALUE:
      return "an unsupported value or parameter was passed to the function";
    case CUBLAS_STATUS_ARCH_MISMATCH:
      return "the function requires an architectural feature absent from the device";
    case CUBLAS_STATUS_MAPPING_ERROR:
      return "an access to GPU memory space failed";
    case CUBLAS_STATUS_EXECUTION_FAILED:
      return "the function failed to launch on the GPU";
    case CUBLAS_STATUS_INTERNAL_ERROR:
      return "an internal operation failed";
    case CUBLAS_STATUS_NOT_SUPPORTED:
      return "the requested functionality is not supported";
    case CUBLAS_STATUS_LICENSE_ERROR:
      return "the license check failed";
  }
  return "unknown error";
}

}  // namespace seer::cublas
