#pragma once

// What the recorder's wrappers (cublas_calls.cpp, cudnn_calls.cpp, launch_args.cpp) need from it.

#include <cstdint>
#include <string>
#include <vector>

namespace seer::profiler {

// Marks the kernels the calling thread launches until end_library_call as one library call
// (a CUPTI external correlation id), and writes the call's label and parameters (as the session
// names the call: "cublasGemmEx [bf16]", "m=..,n=..,k=..,batch=.."). 0 when not recording.
uint64_t begin_library_call(const std::string& label, const std::string& params);
// The same for a call the session sees as several ops (a cuDNN attention: its GEMM work and its
// memory traffic): one `library` line per op, in order, under one id. 0 when `ops` is empty.
struct LibraryOpName {
  std::string label, params;
};
uint64_t begin_library_call(const std::vector<LibraryOpName>& ops);
// Marks one kernel launch with the size arguments its family model reads (`n` values). 0 when not
// recording or `n` is 0. Ended by end_library_call.
uint64_t begin_launch_args(const uint64_t* values, int n);
void end_library_call(uint64_t id);
// Writes the size arguments of the launch whose kernel's activity record carries the CUPTI
// correlation id `correlation` (an `args` line and its `external` line). Nothing when `n` is 0.
void record_launch_sizes(uint32_t correlation, const uint64_t* values, int n);

// Subscribes to CUPTI's callback API (`cupti`: the library's dlopen handle) to hear Triton's
// launches (triton_launches.cpp); says so on stderr when CUPTI refuses.
void start_triton_launches(void* cupti);

}  // namespace seer::profiler
