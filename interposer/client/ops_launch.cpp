// Kernel launches: the one record both front-ends send (cudaLaunchKernel, <<<>>>, cuLaunchKernel).

#include <algorithm>

#include "graph.h"
#include "ops.h"

namespace seer::client::ops {
namespace {

cudaError_t validate(const LaunchDims& d, int device) {
  if (d.grid[0] == 0 || d.grid[1] == 0 || d.grid[2] == 0 || d.block[0] == 0 || d.block[1] == 0 ||
      d.block[2] == 0) {
    return cudaErrorInvalidConfiguration;
  }
  if (d.block[0] > 1024 || d.block[1] > 1024 || d.block[2] > 64 ||
      uint64_t{d.block[0]} * d.block[1] * d.block[2] > 1024) {
    return cudaErrorInvalidConfiguration;
  }
  if (d.grid[0] > 0x7fffffffu || d.grid[1] > 65535 || d.grid[2] > 65535) {
    return cudaErrorInvalidConfiguration;
  }
  if (d.shmem > static_cast<uint64_t>(gpu(device).shared_mem_per_block_optin())) {
    return cudaErrorInvalidValue;
  }
  return cudaSuccess;
}

}  // namespace

cudaError_t launch(ThreadState& ts, const void* func, const LaunchDims& d, const void* stream,
                   bool per_thread, const LaunchSizes* sizes) {
  if (!func) return cudaErrorInvalidDeviceFunction;
  if (cudaError_t err = validate(d, ts.device); err != cudaSuccess) return err;
  StreamObj* s = CudaState::instance().resolve_stream(ts, stream, per_thread);
  if (!s) return cudaErrorInvalidResourceHandle;
  PodRecord r;
  r.type = PodRecord::kLaunch;
  r.a = CudaState::instance().kernel_id(ts, func);
  r.b = s->id;
  r.dims[0] = d.grid[0];
  r.dims[1] = d.grid[1];
  r.dims[2] = d.grid[2];
  r.dims[3] = d.block[0];
  r.dims[4] = d.block[1];
  r.dims[5] = d.block[2];
  r.dims[6] = static_cast<uint32_t>(d.shmem);
  if (sizes) {
    r.nsizes = static_cast<uint8_t>(std::min(sizes->n, PodRecord::kMaxSizes));
    for (int i = 0; i < r.nsizes; ++i) r.sizes[i] = sizes->values[i];
  }
  return graph::submit(ts, s, r);
}

// Limited by threads, blocks, shared memory and (when known) registers per SM.
int blocks_per_sm(int device, int block_size, size_t shmem, int registers_per_thread) {
  const auto& g = gpu(device);
  if (block_size <= 0) return 0;
  int n = std::min(g.max_threads_per_sm() / block_size, g.max_blocks_per_sm());
  if (shmem) n = std::min(n, static_cast<int>(g.shared_mem_per_sm() / shmem));
  if (registers_per_thread > 0) {
    const int warps = (block_size + 31) / 32;
    const int regs_per_warp = (registers_per_thread * 32 + 255) / 256 * 256;  // allocation unit
    n = std::min(n, g.regs_per_sm() / std::max(1, warps * regs_per_warp));
  }
  return std::max(n, 0);
}

int max_threads_per_block(int device, const KernelInfo& kernel, int default_registers) {
  if (kernel.max_threads > 0) return kernel.max_threads;
  const int registers = kernel.registers > 0 ? kernel.registers : default_registers;
  const int regs_per_warp = (registers * 32 + 255) / 256 * 256;
  const int warps = gpu(device).regs_per_sm() / std::max(1, regs_per_warp);
  return std::clamp(warps * 32, 32, 1024);
}

}  // namespace seer::client::ops
