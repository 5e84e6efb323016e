// Helpers shared by the end-to-end test programs. Each program prints the times it measures
// itself as machine-readable lines, "RESULT <name> <value>", that the tests compare with values
// computed from the documented models (simcore/README.md).
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                           \
  do {                                                                        \
    cudaError_t err_ = (call);                                                \
    if (err_ != cudaSuccess) {                                                \
      std::fprintf(stderr, "%s:%d: %s: %s (%d)\n", __FILE__, __LINE__, #call, \
                   cudaGetErrorString(err_), static_cast<int>(err_));         \
      std::exit(1);                                                           \
    }                                                                         \
  } while (0)

// std::chrono::steady_clock in nanoseconds (one clock_gettime(CLOCK_MONOTONIC) read).
inline int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

inline void result_int(const char* name, long long value) {
  std::printf("RESULT %s %lld\n", name, value);
}

// Milliseconds from cudaEventElapsedTime, printed with nanosecond resolution.
inline void result_ms(const char* name, float ms) { std::printf("RESULT %s %.6f\n", name, ms); }

inline float elapsed_ms(cudaEvent_t a, cudaEvent_t b) {
  float ms = -1;
  CHECK(cudaEventElapsedTime(&ms, a, b));
  return ms;
}

// A kernel of 1000 full waves on an H100 (132 SMs x 32 blocks of 32 threads): it keeps the GPU
// busy long enough that the host runs ahead, so later events time the ops between them exactly.
__global__ void blocker() {}
constexpr unsigned kBlockerBlocks = 132 * 32 * 1000;
constexpr unsigned kBlockerThreads = 32;
