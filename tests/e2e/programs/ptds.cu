// Built with --default-stream per-thread: stream 0 is the thread's own default stream, a blocking
// stream like any other, which does not serialize with other streams; the legacy default stream
// (cudaStreamLegacy) still waits for it.
#include "common.h"

int main() {
  constexpr size_t kBytes = size_t{64} << 20;
  CHECK(cudaSetDevice(0));
  cudaStream_t s1;
  CHECK(cudaStreamCreate(&s1));
  void *device = nullptr, *host = nullptr;
  CHECK(cudaMalloc(&device, kBytes));
  CHECK(cudaMallocHost(&host, kBytes));
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));

  // P1: a copy on another blocking stream does not wait for the per-thread default stream.
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaEventRecord(e0, 0));
  blocker<<<kBlockerBlocks, kBlockerThreads>>>();
  CHECK(cudaMemcpyAsync(device, host, kBytes, cudaMemcpyHostToDevice, s1));
  CHECK(cudaEventRecord(e1, s1));
  CHECK(cudaDeviceSynchronize());
  result_ms("p1_other_stream_ms", elapsed_ms(e0, e1));

  // P2: the legacy default stream waits for it.
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaEventRecord(e0, 0));
  blocker<<<kBlockerBlocks, kBlockerThreads>>>();
  CHECK(cudaMemcpyAsync(device, host, kBytes, cudaMemcpyHostToDevice, cudaStreamLegacy));
  CHECK(cudaEventRecord(e1, cudaStreamLegacy));
  CHECK(cudaDeviceSynchronize());
  result_ms("p2_legacy_ms", elapsed_ms(e0, e1));

  // P3: and it waits for the legacy default stream.
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaEventRecord(e0, cudaStreamLegacy));
  blocker<<<kBlockerBlocks, kBlockerThreads, 0, cudaStreamLegacy>>>();
  CHECK(cudaMemcpyAsync(device, host, kBytes, cudaMemcpyHostToDevice, 0));
  CHECK(cudaEventRecord(e1, 0));
  CHECK(cudaDeviceSynchronize());
  result_ms("p3_after_legacy_ms", elapsed_ms(e0, e1));

  // P4: cudaStreamPerThread names the same stream as 0.
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaEventRecord(e0, cudaStreamPerThread));
  blocker<<<kBlockerBlocks, kBlockerThreads>>>();
  CHECK(cudaMemcpyAsync(device, host, kBytes, cudaMemcpyHostToDevice, cudaStreamPerThread));
  CHECK(cudaEventRecord(e1, cudaStreamPerThread));
  CHECK(cudaDeviceSynchronize());
  result_ms("p4_same_stream_ms", elapsed_ms(e0, e1));

  CHECK(cudaEventDestroy(e0));
  CHECK(cudaEventDestroy(e1));
  CHECK(cudaStreamDestroy(s1));
  CHECK(cudaFree(device));
  CHECK(cudaFreeHost(host));
  return 0;
}
