// Several ranks (processes) share GPU 0 and contend for its engines: each rank copies in, runs a
// kernel, copies out and waits, ten times, with rank-dependent sizes and host work between
// iterations; odd iterations poll with cudaStreamQuery instead of waiting. Its times depend on how
// the ranks interleave in virtual time, which must not depend on how their messages interleave in
// real time.
//
//   RANK=r WORLD_SIZE=n contend
#include <cstdlib>

#include "common.h"

__global__ void step(int rank, int iteration) {}

int main() {
  const char* rank_env = std::getenv("RANK");
  const int rank = rank_env ? std::atoi(rank_env) : 0;
  const size_t bytes = size_t(rank + 1) << 20;
  CHECK(cudaSetDevice(0));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  void *device = nullptr, *host = nullptr;
  CHECK(cudaMalloc(&device, bytes));
  CHECK(cudaMallocHost(&host, bytes));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  for (int it = 0; it < 10; ++it) {
    const int64_t t0 = now_ns();
    CHECK(cudaEventRecord(start, s));
    CHECK(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, s));
    step<<<4224 * 10 * (rank + 1), 32, 0, s>>>(rank, it);
    CHECK(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, s));
    CHECK(cudaEventRecord(stop, s));
    long long polls = 0;
    if (it % 2 == 0) {
      CHECK(cudaStreamSynchronize(s));
    } else {
      // Poll instead: each answer must already be final.
      cudaError_t rc;
      while ((rc = cudaStreamQuery(s)) == cudaErrorNotReady) ++polls;
      CHECK(rc);
    }
    const int64_t t1 = now_ns();
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    std::printf("RESULT r%d_it%d_chrono_ns %lld\n", rank, it, static_cast<long long>(t1 - t0));
    std::printf("RESULT r%d_it%d_event_ms %.6f\n", rank, it, ms);
    std::printf("RESULT r%d_it%d_polls %lld\n", rank, it, polls);
    int d = 0;
    for (int j = 0; j < 3 * rank + it % 4; ++j) CHECK(cudaGetDevice(&d));
  }
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(device));
  CHECK(cudaFreeHost(host));
  return 0;
}
