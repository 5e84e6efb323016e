// Kernel registration and launch: how a <<<>>> launch becomes a timed op on a stream.

#include <algorithm>
#include <cstring>

#include "api.h"

namespace seer::cudart {
namespace {

// Registers per thread assumed for a kernel whose image does not say.
constexpr int kDefaultRegisters = 32;

struct CallConfig {
  dim3 grid;
  dim3 block;
  size_t shmem = 0;
  void* stream = nullptr;
};
thread_local CallConfig tl_config[8];
thread_local int tl_config_depth = 0;

cudaError_t launch(const void* func, dim3 grid, dim3 block, size_t shmem, const void* stream,
                   bool per_thread, void** args) {
  cudaError_t err = cudaSuccess;
  if (!ready(err)) return err;
  ApiCall call(Core::instance(), Core::instance().launch_cost());
  const client::ops::LaunchDims d{{grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, shmem};
  client::ops::LaunchSizes sizes;
  if (args && func) {
    if (const client::ArgSpec* spec = CudaState::instance().arg_spec(func, call.ts().device)) {
      sizes.n = client::read_launch_args(*spec, args, sizes.values);
    }
  }
  return fail(call.ts(), client::ops::launch(call.ts(), func, d, stream, per_thread, &sizes));
}

}  // namespace
}  // namespace seer::cudart

using namespace seer::cudart;

// The handle holds the fat binary, so that a kernel registered with it can find its code.
SEER_CUDA_API void** __cudaRegisterFatBinary(void* fat_cubin) {
  return new void* [1] { fat_cubin };
}

SEER_CUDA_API void __cudaRegisterFatBinaryEnd(void** /*handle*/) {}
SEER_CUDA_API void __cudaUnregisterFatBinary(void** /*handle*/) {}

SEER_CUDA_API void __cudaRegisterFunction(void** handle, const char* host_fun, char* device_fun,
                                          const char* device_name, int /*thread_limit*/,
                                          uint3* /*tid*/, uint3* /*bid*/, dim3* /*bdim*/,
                                          dim3* /*gdim*/, int* /*wsize*/) {
  CudaState::instance().register_function(host_fun, device_fun ? device_fun : device_name, nullptr,
                                          handle ? *handle : nullptr);
}

SEER_CUDA_API char __cudaInitModule(void** /*handle*/) { return 1; }

SEER_CUDA_API unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shmem,
                                                   struct CUstream_st* stream) {
  if (tl_config_depth < 8) tl_config[tl_config_depth] = CallConfig{grid, block, shmem, stream};
  ++tl_config_depth;
  return 0;
}

SEER_CUDA_API cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, size_t* shmem,
                                                     void* stream) {
  if (tl_config_depth <= 0) return cudaErrorInvalidConfiguration;
  --tl_config_depth;
  const CallConfig& c = tl_config[tl_config_depth < 8 ? tl_config_depth : 7];
  *grid = c.grid;
  *block = c.block;
  *shmem = c.shmem;
  *static_cast<void**>(stream) = c.stream;
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* host_fun) {
  if (!kernel) return cudaErrorInvalidValue;
  *kernel = reinterpret_cast<cudaKernel_t>(const_cast<void*>(host_fun));
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block,
                                             void** args, size_t shmem, cudaStream_t stream) {
  // <<<>>> launches are cudaLaunchKernel calls to a profiler, as with NVIDIA's runtime.
  seer::client::activity::ApiScope seer_api_scope_(seer::client::activity::Domain::kRuntime,
                                                   "cudaLaunchKernel", kernel);
  return launch(reinterpret_cast<const void*>(kernel), grid, block, shmem, stream, false, args);
}

SEER_CUDA_API cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block,
                                                  void** args, size_t shmem, cudaStream_t stream) {
  // <<<>>> launches are cudaLaunchKernel calls to a profiler, as with NVIDIA's runtime.
  seer::client::activity::ApiScope seer_api_scope_(seer::client::activity::Domain::kRuntime,
                                                   "cudaLaunchKernel_ptsz", kernel);
  return launch(reinterpret_cast<const void*>(kernel), grid, block, shmem, stream, true, args);
}

SEER_CUDA_API cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args,
                                           size_t shmem, cudaStream_t stream) {
  SEER_API_SCOPE(func)
  return launch(func, grid, block, shmem, stream, false, args);
}

SEER_CUDA_API cudaError_t cudaLaunchKernel_ptsz(const void* func, dim3 grid, dim3 block,
                                                void** args, size_t shmem, cudaStream_t stream) {
  SEER_API_SCOPE(func)
  return launch(func, grid, block, shmem, stream, true, args);
}

SEER_CUDA_API cudaError_t cudaLaunchCooperativeKernel(const void* func, dim3 grid, dim3 block,
                                                      void** args, size_t shmem,
                                                      cudaStream_t stream) {
  SEER_API_SCOPE(func)
  return launch(func, grid, block, shmem, stream, false, args);
}

SEER_CUDA_API cudaError_t cudaLaunchCooperativeKernel_ptsz(const void* func, dim3 grid, dim3 block,
                                                           void** args, size_t shmem,
                                                           cudaStream_t stream) {
  SEER_API_SCOPE(func)
  return launch(func, grid, block, shmem, stream, true, args);
}

SEER_CUDA_API cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func,
                                              void** args) {
  SEER_API_SCOPE(func)
  if (!config) return cudaErrorInvalidValue;
  return launch(func, config->gridDim, config->blockDim, config->dynamicSmemBytes, config->stream,
                false, args);
}

SEER_CUDA_API cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t* config,
                                                   const void* func, void** args) {
  SEER_API_SCOPE(func)
  if (!config) return cudaErrorInvalidValue;
  return launch(func, config->gridDim, config->blockDim, config->dynamicSmemBytes, config->stream,
                true, args);
}

SEER_CUDA_API cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* func) {
  SEER_ENTER(other_call);
  if (!attr) return fail(call.ts(), cudaErrorInvalidValue);
  if (!func) return fail(call.ts(), cudaErrorInvalidDeviceFunction);
  std::memset(attr, 0, sizeof *attr);
  const int device = call.ts().device;
  const auto& g = gpu(device);
  attr->maxThreadsPerBlock = 1024;
  attr->numRegs = kDefaultRegisters;
  if (const seer::client::KernelInfo* k = CudaState::instance().kernel_info(func, device)) {
    attr->maxThreadsPerBlock =
        seer::client::ops::max_threads_per_block(device, *k, kDefaultRegisters);
    if (k->registers > 0) attr->numRegs = k->registers;
    attr->localSizeBytes = static_cast<size_t>(std::max(k->local_bytes, 0));
    attr->sharedSizeBytes = static_cast<size_t>(std::max(k->static_shared, 0));
  }
  attr->ptxVersion = g.cc_major() * 10 + g.cc_minor();
  attr->binaryVersion = attr->ptxVersion;
  attr->maxDynamicSharedSizeBytes = 48 * 1024;
  attr->preferredShmemCarveout = -1;
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute attr,
                                               int value) {
  SEER_ENTER(other_call);
  if (!func) return fail(call.ts(), cudaErrorInvalidDeviceFunction);
  if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize &&
      (value < 0 || value > gpu(call.ts().device).shared_mem_per_block_optin())) {
    return fail(call.ts(), cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaFuncSetCacheConfig(const void* func, cudaFuncCache /*config*/) {
  SEER_ENTER(other_call);
  return func ? cudaSuccess : fail(call.ts(), cudaErrorInvalidDeviceFunction);
}

// Occupancy answered from the target GPU: limited by threads, blocks, shared memory (dynamic
// and the kernel's static) and registers per SM, the kernel's as its image says when it does.
static int blocks_per_sm(const void* func, int device, int block_size, size_t shmem) {
  const seer::client::KernelInfo* k = CudaState::instance().kernel_info(func, device);
  if (k && k->static_shared > 0) shmem += static_cast<size_t>(k->static_shared);
  return seer::client::ops::blocks_per_sm(device, block_size, shmem, k ? k->registers : 0);
}

SEER_CUDA_API cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* num_blocks,
                                                                        const void* func,
                                                                        int block_size,
                                                                        size_t shmem) {
  SEER_ENTER(other_call);
  if (!num_blocks || block_size <= 0 || block_size > 1024) {
    return fail(call.ts(), cudaErrorInvalidValue);
  }
  if (!func) return fail(call.ts(), cudaErrorInvalidDeviceFunction);
  *num_blocks = blocks_per_sm(func, call.ts().device, block_size, shmem);
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int* num_blocks, const void* func, int block_size, size_t shmem, unsigned /*flags*/) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(num_blocks, func, block_size, shmem);
}

SEER_CUDA_API cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t* smem, const void* func,
                                                                    int num_blocks,
                                                                    int block_size) {
  SEER_ENTER(other_call);
  if (!smem || num_blocks <= 0 || block_size <= 0) return fail(call.ts(), cudaErrorInvalidValue);
  const auto& g = gpu(call.ts().device);
  const size_t per = static_cast<size_t>(g.shared_mem_per_sm()) / static_cast<size_t>(num_blocks);
  *smem = std::min(per, static_cast<size_t>(g.shared_mem_per_block_optin()));
  return cudaSuccess;
}
