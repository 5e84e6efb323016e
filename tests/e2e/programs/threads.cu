// Two host threads, each with its own per-thread default stream (built with
// --default-stream per-thread): each copies in, runs a kernel and waits, five times. The threads
// start together after the main thread's set-up.
#include <thread>
#include <vector>

#include "common.h"

__global__ void thread_step(int thread, int iteration) {}

namespace {

constexpr size_t kBytes = size_t{8} << 20;

void worker(int index, void* device, void* host, std::vector<long long>* out) {
  CHECK(cudaSetDevice(0));
  for (int it = 0; it < 5; ++it) {
    const int64_t t0 = now_ns();
    CHECK(cudaMemcpyAsync(device, host, kBytes, cudaMemcpyHostToDevice, cudaStreamPerThread));
    thread_step<<<4224 * 20, 32>>>(index, it);  // the per-thread default stream
    CHECK(cudaStreamSynchronize(cudaStreamPerThread));
    out->push_back(now_ns() - t0);
  }
}

}  // namespace

int main() {
  CHECK(cudaSetDevice(0));
  void *d0 = nullptr, *d1 = nullptr, *h0 = nullptr, *h1 = nullptr;
  CHECK(cudaMalloc(&d0, kBytes));
  CHECK(cudaMalloc(&d1, kBytes));
  CHECK(cudaMallocHost(&h0, kBytes));
  CHECK(cudaMallocHost(&h1, kBytes));
  CHECK(cudaDeviceSynchronize());
  std::vector<long long> times0, times1;
  std::thread a(worker, 0, d0, h0, &times0);
  std::thread b(worker, 1, d1, h1, &times1);
  a.join();
  b.join();
  for (size_t i = 0; i < times0.size(); ++i) {
    std::printf("RESULT t0_it%zu_ns %lld\n", i, times0[i]);
    std::printf("RESULT t1_it%zu_ns %lld\n", i, times1[i]);
  }
  CHECK(cudaDeviceSynchronize());
  return 0;
}
