#pragma once

// Shared helpers for the CUDA runtime replacement's entry points. The operations themselves
// live in the client (client/ops.h), shared with the driver API replacement.

#include <cuda_runtime_api.h>

#include "activity.h"
#include "core.h"
#include "cuda_state.h"
#include "device_memory.h"
#include "ops.h"

#define SEER_CUDA_API extern "C" __attribute__((visibility("default")))

namespace seer::cudart {

using client::ApiCall;
using client::Core;
using client::CudaState;
using client::ThreadState;
using client::ops::device_count;
using client::ops::gpu;
using client::ops::not_joined_error;
using client::ops::ready;
using client::ops::submit;
using client::ops::sync_stream;
using client::ops::valid_device;

// Records `err` as the thread's last error (when it is one) and returns it.
inline cudaError_t fail(ThreadState& ts, cudaError_t err) {
  if (err != cudaSuccess) ts.last_error = err;
  return err;
}

}  // namespace seer::cudart

// CUPTI callback-API subscribers hear of the entry point (client/activity.h: one relaxed load
// when nobody listens); `func`: a launch's kernel.
#define SEER_API_SCOPE(func)                                                                     \
  ::seer::client::activity::ApiScope seer_api_scope_(::seer::client::activity::Domain::kRuntime, \
                                                     __func__, func);

#define SEER_ENTER(cost_field)                                   \
  cudaError_t seer_err_ = cudaSuccess;                           \
  if (!::seer::cudart::ready(seer_err_)) return seer_err_;       \
  SEER_API_SCOPE(nullptr)                                        \
  ::seer::cudart::ApiCall call(::seer::cudart::Core::instance(), \
                               ::seer::cudart::Core::instance().costs().cost_field());

// A call that launches an operation (a copy or a memset): its API cost plus, in modeled mode,
// the framework's cost around it (Core::framework_cost).
#define SEER_ENTER_OP(cost_field)                                                      \
  cudaError_t seer_err_ = cudaSuccess;                                                 \
  if (!::seer::cudart::ready(seer_err_)) return seer_err_;                             \
  SEER_API_SCOPE(nullptr)                                                              \
  ::seer::cudart::ApiCall call(::seer::cudart::Core::instance(),                       \
                               ::seer::cudart::Core::instance().costs().cost_field() + \
                                   ::seer::cudart::Core::instance().framework_cost());
