// Kernel launches with size arguments: the recorder, preloaded, comes before the CUDA runtime's
// launch entry points (__cudaLaunchKernel is what <<<>>> calls since CUDA 13, cudaLaunchKernel
// what older code and explicit calls use). For kernels whose family model reads launch arguments,
// chosen by the same rule Seer's client uses (interposer/client/kernel_args.h, compiled into
// both), it records their values and marks the launch with an external correlation id, so the
// kernel's database entry holds the sizes the session will look it up by.

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "kernel_args.h"
#include "recorder.h"

#define SEER_PROFILER_API extern "C" __attribute__((visibility("default")))

namespace {

using LaunchFn = cudaError_t (*)(const void*, dim3, dim3, void**, size_t, cudaStream_t);
using RuntimeNameFn = cudaError_t (*)(const char**, const void*);
using DriverNameFn = int (*)(const char**, void*);  // cuKernelGetName(const char**, CUkernel)

// The mangled name of a kernel, given its host stub (cudaLaunchKernel) or its cudaKernel_t
// (__cudaLaunchKernel, what <<<>>> calls since CUDA 13; interchangeable with CUkernel).
const char* name_of(const void* kernel) {
  static auto driver = reinterpret_cast<DriverNameFn>(dlsym(RTLD_DEFAULT, "cuKernelGetName"));
  static auto runtime = reinterpret_cast<RuntimeNameFn>(dlsym(RTLD_DEFAULT, "cudaFuncGetName"));
  const char* name = nullptr;
  if (driver && driver(&name, const_cast<void*>(kernel)) == 0 && name) return name;
  if (runtime && runtime(&name, kernel) == cudaSuccess && name) return name;
  return nullptr;
}

// Per kernel, once: the fields Seer's client reads, or nullptr.
const seer::client::ArgSpec* spec_of(const void* kernel) {
  static std::mutex mu;
  static std::unordered_map<const void*, const seer::client::ArgSpec*> specs;
  std::lock_guard<std::mutex> lock(mu);
  auto [it, inserted] = specs.try_emplace(kernel, nullptr);
  if (inserted) {
    if (const char* name = name_of(kernel)) it->second = seer::client::arg_spec_for_name(name);
  }
  return it->second;
}

cudaError_t marked_launch(const void* kernel, dim3 grid, dim3 block, void** args, size_t shmem,
                          cudaStream_t stream, LaunchFn real) {
  if (!real) return cudaErrorInitializationError;
  uint64_t id = 0;
  if (const seer::client::ArgSpec* spec = args ? spec_of(kernel) : nullptr) {
    uint64_t values[4] = {};
    id = seer::profiler::begin_launch_args(values,
                                           seer::client::read_launch_args(*spec, args, values));
  }
  const cudaError_t result = real(kernel, grid, block, args, shmem, stream);
  seer::profiler::end_library_call(id);
  return result;
}

LaunchFn next(const char* symbol) { return reinterpret_cast<LaunchFn>(dlsym(RTLD_NEXT, symbol)); }

}  // namespace

SEER_PROFILER_API cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args,
                                               size_t shmem, cudaStream_t stream) {
  static const LaunchFn real = next("cudaLaunchKernel");
  return marked_launch(func, grid, block, args, shmem, stream, real);
}

SEER_PROFILER_API cudaError_t cudaLaunchKernel_ptsz(const void* func, dim3 grid, dim3 block,
                                                    void** args, size_t shmem,
                                                    cudaStream_t stream) {
  static const LaunchFn real = next("cudaLaunchKernel_ptsz");
  return marked_launch(func, grid, block, args, shmem, stream, real);
}

SEER_PROFILER_API cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block,
                                                 void** args, size_t shmem, cudaStream_t stream) {
  static const LaunchFn real = next("__cudaLaunchKernel");
  return marked_launch(kernel, grid, block, args, shmem, stream, real);
}

SEER_PROFILER_API cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block,
                                                      void** args, size_t shmem,
                                                      cudaStream_t stream) {
  static const LaunchFn real = next("__cudaLaunchKernel_ptsz");
  return marked_launch(kernel, grid, block, args, shmem, stream, real);
}
