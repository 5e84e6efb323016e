// Misuse: the error codes real CUDA returns for invalid devices, pointers, handles, launch
// configurations and sizes, with CUDA's last-error semantics.
#include <cstring>

#include "common.h"

__global__ void noop() {}

int main() {
  int count = -1;
  CHECK(cudaGetDeviceCount(&count));
  result_int("device_count", count);
  result_int("set_device_9999_rc", cudaSetDevice(9999));
  result_int("set_device_minus1_rc", cudaSetDevice(-1));
  result_int("set_device_count_rc", cudaSetDevice(count));
  result_int("after_set_device_last_rc", cudaGetLastError());
  int device = -1;
  CHECK(cudaGetDevice(&device));
  result_int("device_after_bad_set", device);
  cudaDeviceProp prop;
  result_int("properties_bad_device_rc", cudaGetDeviceProperties(&prop, count));

  // Pointers.
  int on_stack = 0;
  result_int("free_host_pointer_rc", cudaFree(&on_stack));
  result_int("free_null_rc", cudaFree(nullptr));
  void* d = nullptr;
  CHECK(cudaMalloc(&d, 4096));
  result_int("free_interior_pointer_rc", cudaFree(static_cast<char*>(d) + 512));
  char host[64];
  result_int("memcpy_null_dst_rc", cudaMemcpy(nullptr, host, sizeof host, cudaMemcpyHostToDevice));
  result_int("memcpy_null_src_rc", cudaMemcpy(d, nullptr, sizeof host, cudaMemcpyHostToDevice));
  result_int("memcpy_past_end_rc", cudaMemcpy(d, host, 8192, cudaMemcpyHostToDevice));
  result_int("memset_host_pointer_rc", cudaMemset(host, 0, sizeof host));
  result_int("memcpy_bad_kind_rc",
             cudaMemcpy(d, host, sizeof host, static_cast<cudaMemcpyKind>(77)));
  (void)cudaGetLastError();  // clears it

  // Streams and events.
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaStreamDestroy(s));
  result_int("sync_destroyed_stream_rc", cudaStreamSynchronize(s));
  result_int("sync_garbage_stream_rc",
             cudaStreamSynchronize(reinterpret_cast<cudaStream_t>(0xdeadbeef0)));
  result_int("copy_on_destroyed_stream_rc",
             cudaMemcpyAsync(d, host, sizeof host, cudaMemcpyHostToDevice, s));
  cudaEvent_t timed, untimed;
  CHECK(cudaEventCreate(&timed));
  CHECK(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming));
  CHECK(cudaEventRecord(timed, 0));
  CHECK(cudaEventRecord(untimed, 0));
  CHECK(cudaEventSynchronize(untimed));
  float ms = 0;
  result_int("elapsed_disable_timing_rc", cudaEventElapsedTime(&ms, timed, untimed));
  cudaEvent_t never;
  CHECK(cudaEventCreate(&never));
  result_int("elapsed_unrecorded_rc", cudaEventElapsedTime(&ms, timed, never));
  result_int("query_unrecorded_rc", cudaEventQuery(never));
  CHECK(cudaEventDestroy(never));
  result_int("sync_destroyed_event_rc", cudaEventSynchronize(never));
  result_int("event_bad_flags_rc", cudaEventCreateWithFlags(&never, 0x100));
  (void)cudaGetLastError();  // clears it

  // Work still running: queries and elapsed time answer cudaErrorNotReady (600).
  {
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    CHECK(cudaEventRecord(a, 0));
    blocker<<<kBlockerBlocks, kBlockerThreads>>>();
    CHECK(cudaEventRecord(b, 0));
    result_int("elapsed_running_rc", cudaEventElapsedTime(&ms, a, b));
    result_int("event_query_running_rc", cudaEventQuery(b));
    result_int("stream_query_running_rc", cudaStreamQuery(0));
    CHECK(cudaEventSynchronize(b));
    result_int("elapsed_done_rc", cudaEventElapsedTime(&ms, a, b));
    result_int("event_query_done_rc", cudaEventQuery(b));
    result_int("stream_query_done_rc", cudaStreamQuery(0));
    CHECK(cudaEventDestroy(a));
    CHECK(cudaEventDestroy(b));
    (void)cudaGetLastError();  // clears it
  }

  // Launch configuration errors are reported by cudaGetLastError and are not sticky.
  noop<<<1, 2048>>>();
  result_int("peek_after_bad_launch_rc", cudaPeekAtLastError());
  result_int("peek_again_rc", cudaPeekAtLastError());
  result_int("get_after_bad_launch_rc", cudaGetLastError());
  result_int("get_again_rc", cudaGetLastError());
  noop<<<0, 32>>>();
  result_int("zero_grid_rc", cudaGetLastError());
  noop<<<dim3(1, 65536), 32>>>();
  result_int("grid_y_too_big_rc", cudaGetLastError());
  noop<<<1, dim3(1, 1, 65)>>>();
  result_int("block_z_too_big_rc", cudaGetLastError());
  noop<<<1, 32, 1 << 20>>>();
  result_int("shared_too_big_rc", cudaGetLastError());
  noop<<<1, 1024>>>();
  result_int("good_launch_rc", cudaGetLastError());
  result_int("device_sync_rc", cudaDeviceSynchronize());
  // The last error is the most recent one.
  cudaSetDevice(9999);
  cudaFree(&on_stack);
  result_int("most_recent_error_rc", cudaGetLastError());

  // Names and descriptions.
  std::printf("RESULT name_2 %s\n", cudaGetErrorName(cudaErrorMemoryAllocation));
  std::printf("RESULT string_2 %s\n", cudaGetErrorString(cudaErrorMemoryAllocation));
  std::printf("RESULT name_0 %s\n", cudaGetErrorName(cudaSuccess));
  std::printf("RESULT string_0 %s\n", cudaGetErrorString(cudaSuccess));
  std::printf("RESULT name_1 %s\n", cudaGetErrorName(cudaErrorInvalidValue));
  std::printf("RESULT string_1 %s\n", cudaGetErrorString(cudaErrorInvalidValue));
  std::printf("RESULT name_101 %s\n", cudaGetErrorName(cudaErrorInvalidDevice));
  std::printf("RESULT string_101 %s\n", cudaGetErrorString(cudaErrorInvalidDevice));
  std::printf("RESULT name_400 %s\n", cudaGetErrorName(cudaErrorInvalidResourceHandle));
  std::printf("RESULT string_400 %s\n", cudaGetErrorString(cudaErrorInvalidResourceHandle));
  std::printf("RESULT name_9 %s\n", cudaGetErrorName(cudaErrorInvalidConfiguration));
  std::printf("RESULT name_600 %s\n", cudaGetErrorName(cudaErrorNotReady));
  std::printf("RESULT name_801 %s\n", cudaGetErrorName(cudaErrorNotSupported));
  std::printf("RESULT string_801 %s\n", cudaGetErrorString(cudaErrorNotSupported));
  std::printf("RESULT name_700 %s\n", cudaGetErrorName(cudaErrorIllegalAddress));
  std::printf("RESULT name_12345 %s\n", cudaGetErrorName(static_cast<cudaError_t>(12345)));
  std::printf("RESULT string_12345 %s\n", cudaGetErrorString(static_cast<cudaError_t>(12345)));

  int version = 0;
  CHECK(cudaRuntimeGetVersion(&version));
  result_int("runtime_version", version);
  CHECK(cudaFree(d));
  CHECK(cudaEventDestroy(timed));
  CHECK(cudaEventDestroy(untimed));
  return 0;
}
