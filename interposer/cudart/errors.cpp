// Errors: per-thread last error (cudaGetLastError resets it, cudaPeekAtLastError does not);
// names and descriptions of every cudaError_t of CUDA 13.0. Seer only ever produces non-sticky
// errors (no kernel really runs, so nothing can corrupt a context).

#include <cstring>

#include "api.h"

namespace {

struct ErrorInfo {
  int value;
  const char* name;
  const char* description;
};

constexpr ErrorInfo kErrors[] = {
#include "error_table.inc"
};

// The short strings the real runtime returns for the most common codes.
const char* short_string(int e) {
  switch (e) {
    case cudaSuccess:
      return "no error";
    case cudaErrorInvalidValue:
      return "invalid argument";
    case cudaErrorMemoryAllocation:
      return "out of memory";
    case cudaErrorInitializationError:
      return "initialization error";
    case cudaErrorCudartUnloading:
      return "driver shutting down";
    case cudaErrorInvalidConfiguration:
      return "invalid configuration argument";
    case cudaErrorInvalidDevice:
      return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle:
      return "invalid resource handle";
    case cudaErrorNotReady:
      return "device not ready";
    case cudaErrorNoDevice:
      return "no CUDA-capable device is detected";
    case cudaErrorNotSupported:
      return "operation not supported";
    case cudaErrorInvalidDeviceFunction:
      return "invalid device function";
    case cudaErrorInvalidMemcpyDirection:
      return "invalid copy direction for memcpy";
    default:
      return nullptr;
  }
}

const ErrorInfo* find(int e) {
  for (const ErrorInfo& i : kErrors) {
    if (i.value == e) return &i;
  }
  return nullptr;
}

thread_local int tl_error_before_join = cudaSuccess;

int& last_error_slot() {
  using seer::client::Core;
  if (Core::instance().joined()) return Core::instance().thread().last_error;
  return tl_error_before_join;
}

}  // namespace

// Unimplemented entry points (interposer/stubs) record their error like the others do.
extern "C" __attribute__((visibility("hidden"))) void seer_cudart_set_last_error(int e) {
  if (e != cudaSuccess) last_error_slot() = e;
}

SEER_CUDA_API const char* cudaGetErrorName(cudaError_t e) {
  if (e == cudaSuccess) return "cudaSuccess";
  const ErrorInfo* i = find(e);
  return i ? i->name : "unrecognized error code";
}

SEER_CUDA_API const char* cudaGetErrorString(cudaError_t e) {
  if (const char* s = short_string(e)) return s;
  const ErrorInfo* i = find(e);
  return i ? i->description : "unrecognized error code";
}

SEER_CUDA_API cudaError_t cudaGetLastError(void) {
  int& slot = last_error_slot();
  const int e = slot;
  slot = cudaSuccess;
  return static_cast<cudaError_t>(e);
}

SEER_CUDA_API cudaError_t cudaPeekAtLastError(void) {
  return static_cast<cudaError_t>(last_error_slot());
}
