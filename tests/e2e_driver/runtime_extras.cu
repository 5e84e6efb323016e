// Runtime functions PyTorch 2.15 needs beyond the basics: driver entry points, capture state,
// host functions, symbols, 2D copies, run-time libraries (cudaLibrary*), IPC handles and memory
// pools. Prints "RESULT name value" lines. Usage: runtime_extras KERNELS.cubin

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <vector>

#define CHECK(call)                                                                               \
  do {                                                                                            \
    const cudaError_t e_ = (call);                                                                \
    if (e_ != cudaSuccess) {                                                                      \
      std::fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_)); \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

__device__ int d_values[8];

__global__ void touch(int* p) { p[threadIdx.x] += 1; }

void CUDART_CB host_fn(void* flag) { *static_cast<int*>(flag) = 42; }

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  CHECK(cudaSetDevice(0));

  // c10's DriverAPI: driver functions through the runtime.
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
  CHECK(cudaGetDriverEntryPointByVersion("cuMemAlloc", &fn, 12000, cudaEnableDefault, &q));
  std::printf("RESULT entry_found %d\n", fn != nullptr && q == cudaDriverEntryPointSuccess);
  CUdeviceptr dptr = 0;
  const CUresult r = reinterpret_cast<CUresult (*)(CUdeviceptr*, size_t)>(fn)(&dptr, 4096);
  std::printf("RESULT entry_alloc %d\n", r == CUDA_SUCCESS && dptr != 0);
  CHECK(cudaGetDriverEntryPointByVersion("cuNoSuchThing", &fn, 12000, cudaEnableDefault, &q));
  std::printf("RESULT entry_missing %d\n",
              fn == nullptr && q == cudaDriverEntryPointSymbolNotFound);
  int active = 0;
  unsigned flags = 0;
  CHECK(cudaGetDriverEntryPointByVersion("cuDevicePrimaryCtxGetState", &fn, 12000,
                                         cudaEnableDefault, &q));
  reinterpret_cast<CUresult (*)(CUdevice, unsigned*, int*)>(fn)(0, &flags, &active);
  std::printf("RESULT primary_ctx_active %d\n", active);

  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusActive;
  unsigned long long id = 1;
  CHECK(cudaStreamGetCaptureInfo(stream, &status, &id, nullptr, nullptr, nullptr, nullptr));
  std::printf("RESULT capture_none %d\n", status == cudaStreamCaptureStatusNone);

  int flag = 0;
  touch<<<1, 8, 0, stream>>>(static_cast<int*>(nullptr) + 0);
  CHECK(cudaLaunchHostFunc(stream, host_fn, &flag));
  std::printf("RESULT host_fn_ran %d\n", flag);

  const int values[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  int back[8] = {};
  CHECK(cudaMemcpyToSymbol(d_values, values, sizeof values));
  CHECK(cudaMemcpyFromSymbol(back, d_values, sizeof back));
  std::printf("RESULT symbol_roundtrip %d\n", back[7] == 8 && back[0] == 1);
  std::printf("RESULT symbol_too_far %d\n",
              cudaMemcpyToSymbol(d_values, values, sizeof values, 4) == cudaErrorInvalidValue);

  // A 3x4 block of ints through a pitched device buffer.
  int* pitched = nullptr;
  CHECK(cudaMalloc(&pitched, 3 * 64));
  int grid[12], out[12] = {};
  for (int i = 0; i < 12; ++i) grid[i] = 100 + i;
  CHECK(cudaMemcpy2D(pitched, 64, grid, 16, 16, 3, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy2D(out, 16, pitched, 64, 16, 3, cudaMemcpyDeviceToHost));
  std::printf("RESULT copy_2d %d\n", out[11] == 111 && out[4] == 104);
  CHECK(cudaMemset2D(pitched, 64, 0x7f, 16, 3));
  unsigned char row[16];
  CHECK(cudaMemcpy(row, pitched + 32, 16, cudaMemcpyDeviceToHost));
  std::printf("RESULT memset_2d %d\n", row[15] == 0x7f);

  // Kernels loaded at run time, launched through cudaLaunchKernel with their handle.
  std::ifstream in(argv[1], std::ios::binary);
  const std::vector<char> cubin{std::istreambuf_iterator<char>(in),
                                std::istreambuf_iterator<char>()};
  cudaLibrary_t library;
  CHECK(cudaLibraryLoadData(&library, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  cudaKernel_t kernel;
  CHECK(cudaLibraryGetKernel(&kernel, library, "add_one"));
  float* x = nullptr;
  CHECK(cudaMalloc(&x, 1024 * sizeof(float)));
  int n = 1024;
  void* args[] = {&x, &n};
  CHECK(
      cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(4), dim3(256), args, 0, stream));
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaLibraryUnload(library));

  cudaIpcMemHandle_t handle;
  CHECK(cudaIpcGetMemHandle(&handle, x + 16));
  void* opened = nullptr;
  CHECK(cudaIpcOpenMemHandle(&opened, handle, cudaIpcMemLazyEnablePeerAccess));
  std::printf("RESULT ipc_same_pointer %d\n", opened == x + 16);

  cudaMemPool_t pool;
  CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
  unsigned long long threshold = 1ull << 30, read = 0;
  CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &read));
  std::printf("RESULT pool_threshold %d\n", read == threshold);
  CHECK(cudaMemPoolTrimTo(pool, 0));
  std::printf("RESULT done 1\n");
  return 0;
}
