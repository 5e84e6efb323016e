#pragma once

// The cuBLAS handle (struct cublasContext, opaque to programs) and its registry.

#include <cublas_api.h>

#include <cstdint>

#include "common.h"

struct cublasContext {
  cudaStream_t stream = nullptr;  // 0: the legacy default stream
  int device = 0;                 // current device at cublasCreate
  cublasPointerMode_t pointer_mode = CUBLAS_POINTER_MODE_HOST;
  cublasAtomicsMode_t atomics_mode = CUBLAS_ATOMICS_NOT_ALLOWED;
  cublasMath_t math_mode = CUBLAS_DEFAULT_MATH;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
  int sm_count_target = 0;
  cublasEmulationStrategy_t emulation_strategy = CUBLAS_EMULATION_STRATEGY_DEFAULT;
};

namespace seer::cublas {

// The handle when it is live (created and not destroyed), else nullptr.
cublasContext* live(cublasHandle_t h);

// Whether single-precision routines may run on TF32 tensor cores under the handle's math mode.
inline bool tf32_math(const cublasContext* h) {
  return (h->math_mode & 0xf) == CUBLAS_TF32_TENSOR_OP_MATH;
}

// Host-pointer-mode results (dot, nrm2, ...) are ready when the call returns: waits for the
// handle's stream like the real library's copy back does.
void wait_for_host_result(cublasContext* h);

}  // namespace seer::cublas
