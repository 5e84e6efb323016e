#pragma once

// Shared helpers for the driver API replacement's entry points (libcuda.so.1). Operations that
// the runtime also offers live in the client (client/ops.h); these wrappers map their
// cudaError_t to a CUresult.

// The unversioned names (cuMemAlloc, cuCtxCreate, ...) are macros for their newest ABI unless
// this is defined; the library defines every ABI under its own exported name, as NVIDIA does.
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#include <cuda_runtime_api.h>

#include "activity.h"
#include "core.h"
#include "cuda_state.h"
#include "device_memory.h"
#include "ops.h"

#define SEER_CU_API extern "C" __attribute__((visibility("default")))

namespace seer::driver {

using client::ApiCall;
using client::Core;
using client::CudaState;
using client::ThreadState;
namespace ops = client::ops;

// The driver's code for a runtime error (the two enums share most values).
CUresult to_cu(cudaError_t e);

// Joins the session if needed; false (and the error in `err`) when CUDA is unavailable.
inline bool ready(CUresult& err) {
  if (Core::instance().ensure_joined()) return true;
  err = Core::instance().shut_down() ? CUDA_ERROR_DEINITIALIZED : CUDA_ERROR_NO_DEVICE;
  return false;
}

inline bool valid_device(CUdevice d) { return ops::valid_device(d); }

inline CUdeviceptr to_dptr(const void* p) { return reinterpret_cast<CUdeviceptr>(p); }
inline void* from_dptr(CUdeviceptr p) { return reinterpret_cast<void*>(p); }

// Primary and created contexts: one object per context, holding its device.
struct CtxObj {
  int device = 0;
  unsigned flags = 0;
  bool primary = false;
  unsigned long long id = 0;
};
CtxObj* primary_context(int device);
CtxObj* find_context(CUcontext ctx);  // nullptr when not a live context

}  // namespace seer::driver

// CUPTI callback-API subscribers hear of the entry point (client/activity.h: one relaxed load
// when nobody listens); `func`: a launch's kernel.
#define SEER_CU_API_SCOPE(func)                                                                 \
  ::seer::client::activity::ApiScope seer_api_scope_(::seer::client::activity::Domain::kDriver, \
                                                     __func__, func);

#define SEER_CU_ENTER(cost_field)                                \
  CUresult seer_err_ = CUDA_SUCCESS;                             \
  if (!::seer::driver::ready(seer_err_)) return seer_err_;       \
  SEER_CU_API_SCOPE(nullptr)                                     \
  ::seer::driver::ApiCall call(::seer::driver::Core::instance(), \
                               ::seer::driver::Core::instance().costs().cost_field());
