#pragma once

// Shared by Seer's libcublas.so.13 and libcublasLt.so.13 (each library compiles its own copy):
// element types, status texts, and how a call becomes a timed op on a stream.

#include <cublas_api.h>
#include <library_types.h>

#include <cstdint>
#include <string>

#include "gemm_types.h"

#define SEER_CUBLAS_API extern "C" __attribute__((visibility("default")))

namespace seer::cublas {

// One call to time.
struct LibraryOp {
  std::string api;  // the function as the program names it (no _v2 / _64 suffix)
  int64_t m = 0, n = 0, k = 0, batch = 1;
  int dtype = kF32;
  int compute = kF32;  // math pipe (see math_pipe)
  bool gemm = true;
  double bytes = 0;  // memory-bound routines: bytes read + written
};

// Joins the session on first use; false when the process is not under `seer run`.
bool joined();

// Appends `op` to the application stream `stream` (0: the legacy default stream of the current
// device) as a timed op, charging the calling thread one kernel launch. NOT_INITIALIZED when the
// process is not in a session, EXECUTION_FAILED when the stream is not a live stream.
cublasStatus_t enqueue(const void* stream, const LibraryOp& op);

// Charges the calling thread `ns` of host time (pure host-side calls such as handle creation).
void charge_host(int64_t ns);
int64_t other_call_cost();

// SM count of the current device (for the heuristics' wave counts).
int current_sm_count();

const char* status_name(cublasStatus_t s);
const char* status_string(cublasStatus_t s);

// CUDA_VERSION the replaced libraries were built with (cublasGetCudartVersion & co).
inline constexpr size_t kCudartVersion = 13000;

}  // namespace seer::cublas
