// A small CUDA program that overlaps copies and kernels on several streams and times itself with
// CUDA events and std::chrono. It runs unmodified on a real GPU and under `seer run`.
//
//   nvcc -cudart shared -o pipeline_demo pipeline_demo.cu
//   ./pipeline_demo [chunks] [chunk_mib]

#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                      \
  do {                                                                   \
    cudaError_t err_ = (call);                                           \
    if (err_ != cudaSuccess) {                                           \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
                   cudaGetErrorString(err_));                            \
      std::exit(1);                                                      \
    }                                                                    \
  } while (0)

__global__ void scale(float* data, size_t n, float factor) {
  size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (i < n) data[i] *= factor;
}

__global__ void add_bias(float* data, size_t n, float bias) {
  size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (i < n) data[i] += bias;
}

int main(int argc, char** argv) {
  const int chunks = argc > 1 ? std::atoi(argv[1]) : 8;
  const size_t chunk_mib = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 64;
  const size_t n = chunk_mib * (1 << 20) / sizeof(float);
  const size_t bytes = n * sizeof(float);
  const int streams_count = 4;

  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs, %.1f GiB\n", prop.name, prop.multiProcessorCount,
              prop.totalGlobalMem / double(1 << 30));

  float* host = nullptr;
  CHECK(cudaMallocHost(&host, bytes * chunks));
  std::vector<float*> device(chunks);
  for (auto& d : device) CHECK(cudaMalloc(&d, bytes));
  std::vector<cudaStream_t> streams(streams_count);
  for (auto& s : streams) CHECK(cudaStreamCreate(&s));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));

  const auto wall_start = std::chrono::steady_clock::now();
  CHECK(cudaEventRecord(start, 0));
  const unsigned block = 256;
  const unsigned grid = static_cast<unsigned>((n + block - 1) / block);
  for (int c = 0; c < chunks; ++c) {
    cudaStream_t s = streams[c % streams_count];
    CHECK(cudaMemcpyAsync(device[c], host + c * n, bytes, cudaMemcpyHostToDevice, s));
    scale<<<grid, block, 0, s>>>(device[c], n, 2.0f);
    add_bias<<<grid, block, 0, s>>>(device[c], n, 1.0f);
    CHECK(cudaMemcpyAsync(host + c * n, device[c], bytes, cudaMemcpyDeviceToHost, s));
  }
  for (auto& s : streams) {
    cudaEvent_t done;
    CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    CHECK(cudaEventRecord(done, s));
    CHECK(cudaStreamWaitEvent(0, done, 0));
    CHECK(cudaEventDestroy(done));
  }
  CHECK(cudaEventRecord(stop, 0));
  CHECK(cudaEventSynchronize(stop));
  const auto wall_stop = std::chrono::steady_clock::now();
  CHECK(cudaGetLastError());

  float gpu_ms = 0;
  CHECK(cudaEventElapsedTime(&gpu_ms, start, stop));
  const double host_ms = std::chrono::duration<double, std::milli>(wall_stop - wall_start).count();
  const double moved_gib = 2.0 * chunks * bytes / double(1 << 30);
  std::printf("chunks: %d x %zu MiB on %d streams\n", chunks, chunk_mib, streams_count);
  std::printf("cuda events: %.3f ms\n", gpu_ms);
  std::printf("std::chrono: %.3f ms\n", host_ms);
  std::printf("host<->device traffic: %.2f GiB at %.1f GB/s\n", moved_gib,
              moved_gib * (1 << 30) / 1e6 / gpu_ms);

  for (auto& s : streams) CHECK(cudaStreamDestroy(s));
  for (auto& d : device) CHECK(cudaFree(d));
  CHECK(cudaFreeHost(host));
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  return 0;
}
