// cuGetErrorName / cuGetErrorString for every CUresult of CUDA 13.0, and the mapping from the
// runtime's error codes used by the shared operations.

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

// The short strings the real driver returns for the most common codes.
const char* short_string(int e) {
  switch (e) {
    case CUDA_SUCCESS:
      return "no error";
    case CUDA_ERROR_INVALID_VALUE:
      return "invalid argument";
    case CUDA_ERROR_OUT_OF_MEMORY:
      return "out of memory";
    case CUDA_ERROR_NOT_INITIALIZED:
      return "initialization error";
    case CUDA_ERROR_DEINITIALIZED:
      return "driver shutting down";
    case CUDA_ERROR_NO_DEVICE:
      return "no CUDA-capable device is detected";
    case CUDA_ERROR_INVALID_DEVICE:
      return "invalid device ordinal";
    case CUDA_ERROR_INVALID_HANDLE:
      return "invalid resource handle";
    case CUDA_ERROR_NOT_FOUND:
      return "named symbol not found";
    case CUDA_ERROR_NOT_READY:
      return "device not ready";
    case CUDA_ERROR_NOT_SUPPORTED:
      return "operation not supported";
    case CUDA_ERROR_INVALID_IMAGE:
      return "device kernel image is invalid";
    case CUDA_ERROR_FILE_NOT_FOUND:
      return "file not found";
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

}  // namespace

namespace seer::driver {

CUresult to_cu(cudaError_t e) {
  switch (e) {
    case cudaSuccess:
      return CUDA_SUCCESS;
    case cudaErrorMemoryAllocation:
      return CUDA_ERROR_OUT_OF_MEMORY;
    case cudaErrorInitializationError:
      return CUDA_ERROR_NOT_INITIALIZED;
    case cudaErrorCudartUnloading:
      return CUDA_ERROR_DEINITIALIZED;
    case cudaErrorInvalidDeviceFunction:
    case cudaErrorInvalidResourceHandle:
      return CUDA_ERROR_INVALID_HANDLE;
    case cudaErrorSymbolNotFound:
      return CUDA_ERROR_NOT_FOUND;
    case cudaErrorInvalidKernelImage:
      return CUDA_ERROR_INVALID_IMAGE;
    default:  // the driver shares the runtime's values from 100 on
      return static_cast<int>(e) >= 100 ? static_cast<CUresult>(e) : CUDA_ERROR_INVALID_VALUE;
  }
}

}  // namespace seer::driver

SEER_CU_API CUresult cuGetErrorName(CUresult error, const char** out) {
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  const ErrorInfo* i = find(error);
  *out = i ? i->name : nullptr;
  return i ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

SEER_CU_API CUresult cuGetErrorString(CUresult error, const char** out) {
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  if (const char* s = short_string(error)) {
    *out = s;
    return CUDA_SUCCESS;
  }
  const ErrorInfo* i = find(error);
  *out = i ? i->description : nullptr;
  return i ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
