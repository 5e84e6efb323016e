#pragma once

// Shared helpers for the CUDA runtime replacement's entry points.

#include <cuda_runtime_api.h>

#include "core.h"
#include "cuda_state.h"
#include "device_memory.h"

#define SEER_CUDA_API extern "C" __attribute__((visibility("default")))

namespace seer::cudart {

using client::ApiCall;
using client::Core;
using client::CudaState;
using client::ThreadState;

// The error a call returns when the process cannot take part in the simulation.
cudaError_t not_joined_error();

// Records `err` as the thread's last error (when it is one) and returns it.
inline cudaError_t fail(ThreadState& ts, cudaError_t err) {
  if (err != cudaSuccess) ts.last_error = err;
  return err;
}

// Joins the session if needed; false (and the error in `err`) when CUDA is unavailable.
inline bool ready(cudaError_t& err) {
  Core& core = Core::instance();
  if (core.ensure_joined()) return true;
  err = not_joined_error();
  return false;
}

inline int device_count() { return Core::instance().welcome().gpu_count(); }
inline const seer::wire::GpuProperties& gpu(int device) {
  return Core::instance().welcome().gpus(device);
}

// Blocks until everything submitted to `s` is complete; updates the thread clock.
void sync_stream(ThreadState& ts, client::StreamObj* s);
// Appends an op to `s` (caller fills the record's body).
void submit(ThreadState& ts, client::StreamObj* s, client::PodRecord& r);

}  // namespace seer::cudart

#define SEER_ENTER(cost_field)                                   \
  cudaError_t seer_err_ = cudaSuccess;                           \
  if (!::seer::cudart::ready(seer_err_)) return seer_err_;       \
  ::seer::cudart::ApiCall call(::seer::cudart::Core::instance(), \
                               ::seer::cudart::Core::instance().costs().cost_field());
