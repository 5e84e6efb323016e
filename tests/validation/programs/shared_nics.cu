// Two communicators over the same 16 GPUs (two nodes) all-reduce at the same time on separate
// streams: they share every NVLink port and NIC rail, so each should get about half.
// Prints RESULT lines: solo and concurrent times (ms) of one 512 MiB AllReduce.
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdio>
#include <vector>

int main() {
  const int n = 16;
  const size_t count = size_t{128} << 20;  // floats: 512 MiB
  std::vector<ncclComm_t> a(n), b(n);
  std::vector<cudaStream_t> sa(n), sb(n);
  std::vector<float*> buf(n);
  ncclUniqueId ida, idb;
  ncclGetUniqueId(&ida);
  ncclGetUniqueId(&idb);
  ncclGroupStart();
  for (int i = 0; i < n; ++i) {
    cudaSetDevice(i);
    ncclCommInitRank(&a[i], n, ida, i);
    ncclCommInitRank(&b[i], n, idb, i);
  }
  ncclGroupEnd();
  for (int i = 0; i < n; ++i) {
    cudaSetDevice(i);
    cudaStreamCreate(&sa[i]);
    cudaStreamCreate(&sb[i]);
    cudaMalloc(&buf[i], count * sizeof(float));
  }
  cudaEvent_t start, stop_a, stop_b;
  cudaSetDevice(0);
  cudaEventCreate(&start);
  cudaEventCreate(&stop_a);
  cudaEventCreate(&stop_b);
  for (int round = 0; round < 2; ++round) {
    const bool both = round == 1;
    cudaEventRecord(start, sa[0]);
    cudaStreamWaitEvent(sb[0], start, 0);
    ncclGroupStart();
    for (int i = 0; i < n; ++i) {
      ncclAllReduce(buf[i], buf[i], count, ncclFloat, ncclSum, a[i], sa[i]);
      if (both) ncclAllReduce(buf[i], buf[i], count, ncclFloat, ncclSum, b[i], sb[i]);
    }
    ncclGroupEnd();
    cudaEventRecord(stop_a, sa[0]);
    cudaEventRecord(stop_b, sb[0]);
    for (int i = 0; i < n; ++i) {
      cudaStreamSynchronize(sa[i]);
      cudaStreamSynchronize(sb[i]);
    }
    float ms_a = 0, ms_b = 0;
    cudaEventElapsedTime(&ms_a, start, stop_a);
    cudaEventElapsedTime(&ms_b, start, stop_b);
    if (both) {
      std::printf("RESULT concurrent_a_ms %.4f\nRESULT concurrent_b_ms %.4f\n", ms_a, ms_b);
    } else {
      std::printf("RESULT solo_ms %.4f\n", ms_a);
    }
  }
  return 0;
}
