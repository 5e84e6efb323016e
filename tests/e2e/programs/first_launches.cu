// Eight host threads start together and each launches the same 64 kernels, in the same order,
// on the legacy default stream, which no thread has used before. Every kernel's first launch
// thus races with the other threads' launches of it: each must still be counted under its
// name, and the stream must exist before any thread's work on it.
#include <atomic>
#include <thread>
#include <utility>
#include <vector>

#include "common.h"

template <int N>
__global__ void first_launch(int thread) {}

namespace {

constexpr int kThreads = 8;
std::atomic<int> ready{0};

template <int... N>
void launch_all(int thread, std::integer_sequence<int, N...>) {
  (first_launch<N><<<132, 128>>>(thread), ...);
}

void worker(int index) {
  CHECK(cudaSetDevice(0));
  ready.fetch_add(1);
  while (ready.load() < kThreads) {
  }
  launch_all(index, std::make_integer_sequence<int, 64>{});
  CHECK(cudaGetLastError());
}

}  // namespace

int main() {
  CHECK(cudaSetDevice(0));
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) threads.emplace_back(worker, i);
  for (std::thread& t : threads) t.join();
  CHECK(cudaDeviceSynchronize());
  result_int("threads", kThreads);
  return 0;
}
