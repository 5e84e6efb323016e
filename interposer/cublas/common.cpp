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

bool joined() { return Core::instance().ensure_joined(); }

cublasStatus_t enqueue(const void* stream, const LibraryOp& op) {
  Core& core = Core::instance();
  if (!core.ensure_joined()) return CUBLAS_STATUS_NOT_INITIALIZED;
  ApiCall call(core, core.launch_cost());
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
