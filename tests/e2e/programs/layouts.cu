// Two kernels named as PyTorch's vectorized elementwise add, whose family model reads the element
// count N from parameter 0 (an int in PyTorch): one overload takes it as an int, the other as a
// long (as if PyTorch had changed the signature). Each is launched with the same grid for N and 4N
// elements behind a blocker, and timed with events. Seer must read N for the first (its time
// grows with N) and, seeing in the image that the second's parameter 0 is 8 bytes, not read it
// (the generic model: the same time for both N).
// It also asks for the attributes and occupancy of a kernel with __launch_bounds__(256) and 40 KiB
// of static shared memory, which only its image tells.
#include <array>

#include "common.h"

namespace c10 {
struct BFloat16 {
  unsigned short x;
};
}  // namespace c10

namespace at::native {

template <typename T>
struct CUDAFunctor_add {
  __device__ T operator()(T a, T) const { return a; }
};

// The kernels compute nothing under Seer; their bodies only keep the parameters alive.
template <int vec_size, typename func_t, typename array_t>
__global__ void vectorized_elementwise_kernel(int N, func_t f, array_t data) {
  if (N < 0 && sizeof(data) > 0) f(c10::BFloat16{}, c10::BFloat16{});
}

template <int vec_size, typename func_t, typename array_t>
__global__ void vectorized_elementwise_kernel(long N, func_t f, array_t data) {
  if (N < 0 && sizeof(data) > 0) f(c10::BFloat16{}, c10::BFloat16{});
}

}  // namespace at::native

__global__ void __launch_bounds__(256) tiled(float* x) {
  __shared__ float tile[10240];  // 40 KiB
  tile[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  x[threadIdx.x] = tile[255 - threadIdx.x];
}

using Add = at::native::CUDAFunctor_add<c10::BFloat16>;
using Data = std::array<char*, 3>;

int main() {
  constexpr int kN = 1 << 24;
  char* buffer = nullptr;
  CHECK(cudaMalloc(&buffer, 4 * size_t{kN} * 2));
  const Data data{buffer, buffer, buffer};
  cudaEvent_t e[3];
  for (cudaEvent_t& x : e) CHECK(cudaEventCreate(&x));
  const dim3 grid(kN / 4 / 128), block(128);
  for (const bool as_long : {false, true}) {
    for (const int n : {kN, 4 * kN}) {
      blocker<<<kBlockerBlocks, kBlockerThreads>>>();
      CHECK(cudaEventRecord(e[0]));
      if (as_long) {
        at::native::vectorized_elementwise_kernel<8><<<grid, block>>>(long{n}, Add{}, data);
      } else {
        at::native::vectorized_elementwise_kernel<8><<<grid, block>>>(n, Add{}, data);
      }
      CHECK(cudaEventRecord(e[1]));
      CHECK(cudaEventSynchronize(e[1]));
      const char* name =
          as_long ? (n == kN ? "long_n_ms" : "long_4n_ms") : (n == kN ? "int_n_ms" : "int_4n_ms");
      result_ms(name, elapsed_ms(e[0], e[1]));
    }
  }
  cudaFuncAttributes attributes;
  CHECK(cudaFuncGetAttributes(&attributes, tiled));
  result_int("tiled_max_threads", attributes.maxThreadsPerBlock);
  result_int("tiled_shared_bytes", static_cast<long long>(attributes.sharedSizeBytes));
  result_int("tiled_registers", attributes.numRegs);
  int blocks = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, tiled, 256, 0));
  result_int("tiled_blocks_per_sm", blocks);
  return 0;
}
