// Kernel registration and launch: how a <<<>>> launch becomes a timed op on a stream.

#include <cstring>

#include "api.h"

namespace seer::cudart {
namespace {

struct CallConfig {
  dim3 grid;
  dim3 block;
  size_t shmem = 0;
  void* stream = nullptr;
};
thread_local CallConfig tl_config[8];
thread_local int tl_config_depth = 0;

cudaError_t validate(dim3 grid, dim3 block, size_t shmem, int device) {
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.y == 0 || block.z == 0) {
    return cudaErrorInvalidConfiguration;
  }
  if (block.x > 1024 || block.y > 1024 || block.z > 64 ||
      uint64_t{block.x} * block.y * block.z > 1024) {
    return cudaErrorInvalidConfiguration;
  }
  if (grid.x > 0x7fffffffu || grid.y > 65535 || grid.z > 65535) {
    return cudaErrorInvalidConfiguration;
  }
  if (shmem > static_cast<size_t>(gpu(device).shared_mem_per_block_optin())) {
    return cudaErrorInvalidValue;
  }
  return cudaSuccess;
}

cudaError_t launch(const void* func, dim3 grid, dim3 block, size_t shmem, const void* stream,
                   bool per_thread) {
  cudaError_t err = cudaSuccess;
  if (!ready(err)) return err;
  ApiCall call(Core::instance(), Core::instance().costs().launch());
  ThreadState& ts = call.ts();
  if (!func) return fail(ts, cudaErrorInvalidDeviceFunction);
  if ((err = validate(grid, block, shmem, ts.device)) != cudaSuccess) return fail(ts, err);
  client::StreamObj* s = CudaState::instance().resolve_stream(ts, stream, per_thread);
  if (!s) return fail(ts, cudaErrorInvalidResourceHandle);
  client::PodRecord r;
  r.type = client::PodRecord::kLaunch;
  r.a = CudaState::instance().kernel_id(ts, func);
  r.b = s->id;
  r.dims[0] = grid.x;
  r.dims[1] = grid.y;
  r.dims[2] = grid.z;
  r.dims[3] = block.x;
  r.dims[4] = block.y;
  r.dims[5] = block.z;
  r.dims[6] = static_cast<uint32_t>(shmem);
  submit(ts, s, r);
  return cudaSuccess;
}

}  // namespace
}  // namespace seer::cudart

using namespace seer::cudart;

SEER_CUDA_API void** __cudaRegisterFatBinary(void* fat_cubin) {
  static void* handle_storage[1];
  (void)fat_cubin;
  return handle_storage;
}

SEER_CUDA_API void __cudaRegisterFatBinaryEnd(void** /*handle*/) {}
SEER_CUDA_API void __cudaUnregisterFatBinary(void** /*handle*/) {}

SEER_CUDA_API void __cudaRegisterFunction(void** /*handle*/, const char* host_fun, char* device_fun,
                                          const char* device_name, int /*thread_limit*/,
                                          uint3* /*tid*/, uint3* /*bid*/, dim3* /*bdim*/,
                                          dim3* /*gdim*/, int* /*wsize*/) {
  CudaState::instance().register_function(host_fun, device_fun ? device_fun : device_name);
}

SEER_CUDA_API void __cudaRegisterVar(void** /*handle*/, char* /*host_var*/,
                                     char* /*device_address*/, const char* /*device_name*/,
                                     int /*ext*/, size_t /*size*/, int /*constant*/,
                                     int /*global*/) {}

SEER_CUDA_API void __cudaRegisterManagedVar(void** /*handle*/, void** /*host_var_ptr*/,
                                            char* /*device_address*/, const char* /*device_name*/,
                                            int /*ext*/, size_t /*size*/, int /*constant*/,
                                            int /*global*/) {}

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
                                             void** /*args*/, size_t shmem, cudaStream_t stream) {
  return launch(reinterpret_cast<const void*>(kernel), grid, block, shmem, stream, false);
}

SEER_CUDA_API cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block,
                                                  void** /*args*/, size_t shmem,
                                                  cudaStream_t stream) {
  return launch(reinterpret_cast<const void*>(kernel), grid, block, shmem, stream, true);
}

SEER_CUDA_API cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** /*args*/,
                                           size_t shmem, cudaStream_t stream) {
  return launch(func, grid, block, shmem, stream, false);
}

SEER_CUDA_API cudaError_t cudaLaunchKernel_ptsz(const void* func, dim3 grid, dim3 block,
                                                void** /*args*/, size_t shmem,
                                                cudaStream_t stream) {
  return launch(func, grid, block, shmem, stream, true);
}

SEER_CUDA_API cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func,
                                              void** /*args*/) {
  if (!config) return cudaErrorInvalidValue;
  return launch(func, config->gridDim, config->blockDim, config->dynamicSmemBytes, config->stream,
                false);
}

SEER_CUDA_API cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t* config,
                                                   const void* func, void** /*args*/) {
  if (!config) return cudaErrorInvalidValue;
  return launch(func, config->gridDim, config->blockDim, config->dynamicSmemBytes, config->stream,
                true);
}

SEER_CUDA_API cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* func) {
  SEER_ENTER(other_call);
  if (!attr) return fail(call.ts(), cudaErrorInvalidValue);
  if (!func) return fail(call.ts(), cudaErrorInvalidDeviceFunction);
  std::memset(attr, 0, sizeof *attr);
  const auto& g = gpu(call.ts().device);
  attr->maxThreadsPerBlock = 1024;
  attr->numRegs = 32;
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

// Occupancy answered from the target GPU: limited by threads per SM and blocks per SM
// (register and shared-memory limits are not known without the kernel binary).
static int blocks_per_sm(int device, int block_size, size_t shmem) {
  const auto& g = gpu(device);
  if (block_size <= 0) return 0;
  int by_threads = g.max_threads_per_sm() / block_size;
  int by_smem = shmem ? static_cast<int>(g.shared_mem_per_sm() / shmem) : g.max_blocks_per_sm();
  int n = std::min({by_threads, by_smem, g.max_blocks_per_sm()});
  return n < 0 ? 0 : n;
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
  *num_blocks = blocks_per_sm(call.ts().device, block_size, shmem);
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
