// Built with nvcc's default static CUDA runtime (no -cudart shared): Seer cannot serve it and
// stops it with a clear message and exit status 97.
#include <cuda_runtime.h>

#include <cstdio>

int main() {
  std::printf("before the first CUDA call\n");
  std::fflush(stdout);
  int count = -1;
  const cudaError_t rc = cudaGetDeviceCount(&count);
  std::printf("cudaGetDeviceCount: %d, count %d\n", static_cast<int>(rc), count);
  return 0;
}
