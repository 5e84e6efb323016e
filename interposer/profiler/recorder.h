#pragma once

// What the recorder's library-call wrappers (cublas_calls.cpp) need from it.

#include <cstdint>
#include <string>

namespace seer::profiler {

// Marks the kernels the calling thread launches until end_library_call as one library call
// (a CUPTI external correlation id), and writes the call's label and parameters (as the session
// names the call: "cublasGemmEx [bf16]", "m=..,n=..,k=..,batch=.."). 0 when not recording.
uint64_t begin_library_call(const std::string& label, const std::string& params);
void end_library_call(uint64_t id);

}  // namespace seer::profiler
