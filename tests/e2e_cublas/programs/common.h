// Helpers shared by the cuBLAS end-to-end test programs: error checks, "RESULT <name> <value>"
// lines for the tests to read, and event timing of a repeated call on a stream.
#pragma once

#include <cublas_v2.h>
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

#define CHECK_BLAS(call)                                                      \
  do {                                                                        \
    cublasStatus_t st_ = (call);                                              \
    if (st_ != CUBLAS_STATUS_SUCCESS) {                                       \
      std::fprintf(stderr, "%s:%d: %s: %s (%d)\n", __FILE__, __LINE__, #call, \
                   cublasGetStatusName(st_), static_cast<int>(st_));          \
      std::exit(1);                                                           \
    }                                                                         \
  } while (0)

inline void result_int(const char* name, long long value) {
  std::printf("RESULT %s %lld\n", name, value);
}

inline void result_num(const char* name, double value) {
  std::printf("RESULT %s %.6f\n", name, value);
}

inline int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Mean device time of one call, in microseconds, measured with events around `iters` calls
// after one warm-up call. The host enqueues faster than the GPU runs them, so the events time
// the calls back to back.
template <class F>
double time_us(cudaStream_t s, int iters, F call) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  call();
  CHECK(cudaEventRecord(start, s));
  for (int i = 0; i < iters; ++i) call();
  CHECK(cudaEventRecord(stop, s));
  CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  return ms * 1e3 / iters;
}

// Prints <name>_us and <name>_tflops for a GEMM of `flops` per call.
inline void result_gemm(const char* name, double us, double flops) {
  char key[128];
  std::snprintf(key, sizeof key, "%s_us", name);
  result_num(key, us);
  std::snprintf(key, sizeof key, "%s_tflops", name);
  result_num(key, flops / (us * 1e-6) / 1e12);
}
