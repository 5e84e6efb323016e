// Memory: the runtime's entry points over the shared operations of client/ops_memory.cpp
// (simulated device allocations, pinned host memory, copies and memsets as timed ops).

#include <cstdlib>
#include <cstring>

#include "api.h"
#include "graph.h"

using namespace seer::cudart;
using seer::client::DeviceMemory;
using seer::client::PodRecord;
using seer::client::StreamObj;

namespace ops = seer::client::ops;

namespace {
int device_of(const void* p) {
  return DeviceMemory::instance().gpu_of(reinterpret_cast<uint64_t>(p));
}
}  // namespace

SEER_CUDA_API cudaError_t cudaMalloc(void** ptr, size_t size) {
  SEER_ENTER(malloc);
  if (cudaError_t e = seer::client::graph::check_unsafe_call(); e != cudaSuccess) {
    return fail(call.ts(), e);
  }
  return fail(call.ts(), ops::malloc_device(call.ts(), ptr, size, call.ts().device));
}

SEER_CUDA_API cudaError_t cudaFree(void* ptr) {
  SEER_ENTER(free);
  // cudaFree synchronizes the device before releasing memory.
  if (ptr) ops::sync_device(call.ts(), call.ts().device);
  return fail(call.ts(), ops::free_device(call.ts(), ptr));
}

SEER_CUDA_API cudaError_t cudaMallocAsync(void** ptr, size_t size, cudaStream_t stream) {
  SEER_ENTER(malloc);
  if (!CudaState::instance().resolve_stream(call.ts(), stream, false)) {
    return fail(call.ts(), cudaErrorInvalidResourceHandle);
  }
  return fail(call.ts(), ops::malloc_device(call.ts(), ptr, size, call.ts().device));
}

SEER_CUDA_API cudaError_t cudaMallocAsync_ptsz(void** ptr, size_t size, cudaStream_t stream) {
  return cudaMallocAsync(ptr, size, stream);
}

SEER_CUDA_API cudaError_t cudaFreeAsync(void* ptr, cudaStream_t stream) {
  SEER_ENTER(free);
  if (!CudaState::instance().resolve_stream(call.ts(), stream, false)) {
    return fail(call.ts(), cudaErrorInvalidResourceHandle);
  }
  return fail(call.ts(), ops::free_device(call.ts(), ptr));
}

SEER_CUDA_API cudaError_t cudaFreeAsync_ptsz(void* ptr, cudaStream_t stream) {
  return cudaFreeAsync(ptr, stream);
}

SEER_CUDA_API cudaError_t cudaMallocHost(void** ptr, size_t size) {
  SEER_ENTER(malloc);
  return fail(call.ts(), ops::malloc_host(ptr, size));
}

SEER_CUDA_API cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned /*flags*/) {
  SEER_ENTER(malloc);
  return fail(call.ts(), ops::malloc_host(ptr, size));
}

SEER_CUDA_API cudaError_t cudaFreeHost(void* ptr) {
  SEER_ENTER(free);
  return fail(call.ts(), ops::free_host(ptr));
}

SEER_CUDA_API cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned /*flags*/) {
  SEER_ENTER(other_call);
  return fail(call.ts(), ops::host_register(ptr, size));
}

SEER_CUDA_API cudaError_t cudaHostUnregister(void* ptr) {
  SEER_ENTER(other_call);
  return fail(call.ts(), ops::host_unregister(ptr));
}

SEER_CUDA_API cudaError_t cudaHostGetDevicePointer(void** dev, void* host, unsigned flags) {
  SEER_ENTER(other_call);
  if (!dev || !host || flags != 0) return fail(call.ts(), cudaErrorInvalidValue);
  if (!DeviceMemory::instance().is_pinned(reinterpret_cast<uint64_t>(host))) {
    return fail(call.ts(), cudaErrorInvalidValue);
  }
  *dev = host;
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  SEER_ENTER(other_call);
  if (!free_bytes || !total_bytes) return fail(call.ts(), cudaErrorInvalidValue);
  const int d = call.ts().device;
  const DeviceMemory& dm = DeviceMemory::instance();
  *total_bytes = dm.total(d);
  *free_bytes = dm.capacity(d) - dm.used(d);
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attr, const void* ptr) {
  SEER_ENTER(other_call);
  if (!attr) return fail(call.ts(), cudaErrorInvalidValue);
  std::memset(attr, 0, sizeof *attr);
  const auto a = reinterpret_cast<uint64_t>(ptr);
  if (auto alloc = DeviceMemory::instance().find(a)) {
    attr->type = cudaMemoryTypeDevice;
    attr->device = alloc->gpu;
    attr->devicePointer = const_cast<void*>(ptr);
  } else if (DeviceMemory::instance().is_pinned(a)) {
    attr->type = cudaMemoryTypeHost;
    attr->device = call.ts().device;
    attr->hostPointer = const_cast<void*>(ptr);
    attr->devicePointer = const_cast<void*>(ptr);
  } else {
    attr->type = cudaMemoryTypeUnregistered;
    attr->device = -2;
    attr->hostPointer = const_cast<void*>(ptr);
  }
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaMemcpy(void* dst, const void* src, size_t n, cudaMemcpyKind kind) {
  SEER_ENTER_OP(memcpy_sync);
  return fail(call.ts(), ops::copy(call.ts(), dst, src, n, kind, nullptr, false, false));
}

SEER_CUDA_API cudaError_t cudaMemcpy_ptds(void* dst, const void* src, size_t n,
                                          cudaMemcpyKind kind) {
  SEER_ENTER_OP(memcpy_sync);
  return fail(call.ts(), ops::copy(call.ts(), dst, src, n, kind, nullptr, false, true));
}

SEER_CUDA_API cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t n, cudaMemcpyKind kind,
                                          cudaStream_t stream) {
  SEER_ENTER_OP(memcpy_async);
  return fail(call.ts(), ops::copy(call.ts(), dst, src, n, kind, stream, true, false));
}

SEER_CUDA_API cudaError_t cudaMemcpyAsync_ptsz(void* dst, const void* src, size_t n,
                                               cudaMemcpyKind kind, cudaStream_t stream) {
  SEER_ENTER_OP(memcpy_async);
  return fail(call.ts(), ops::copy(call.ts(), dst, src, n, kind, stream, true, true));
}

SEER_CUDA_API cudaError_t cudaMemcpyPeer(void* dst, int dst_device, const void* src, int src_device,
                                         size_t n) {
  SEER_ENTER_OP(memcpy_sync);
  if (device_of(dst) != dst_device || device_of(src) != src_device) {
    return fail(call.ts(), cudaErrorInvalidValue);
  }
  return fail(call.ts(),
              ops::copy(call.ts(), dst, src, n, cudaMemcpyDeviceToDevice, nullptr, false, false));
}

SEER_CUDA_API cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src,
                                              int src_device, size_t n, cudaStream_t stream) {
  SEER_ENTER_OP(memcpy_async);
  if (device_of(dst) != dst_device || device_of(src) != src_device) {
    return fail(call.ts(), cudaErrorInvalidValue);
  }
  return fail(call.ts(),
              ops::copy(call.ts(), dst, src, n, cudaMemcpyDeviceToDevice, stream, true, false));
}

SEER_CUDA_API cudaError_t cudaMemset(void* dst, int value, size_t n) {
  SEER_ENTER_OP(memcpy_async);
  return fail(call.ts(),
              ops::fill(call.ts(), dst, static_cast<uint8_t>(value), 1, n, nullptr, false, false));
}

SEER_CUDA_API cudaError_t cudaMemset_ptds(void* dst, int value, size_t n) {
  SEER_ENTER_OP(memcpy_async);
  return fail(call.ts(),
              ops::fill(call.ts(), dst, static_cast<uint8_t>(value), 1, n, nullptr, false, true));
}

SEER_CUDA_API cudaError_t cudaMemsetAsync(void* dst, int value, size_t n, cudaStream_t stream) {
  SEER_ENTER_OP(memcpy_async);
  return fail(call.ts(),
              ops::fill(call.ts(), dst, static_cast<uint8_t>(value), 1, n, stream, true, false));
}

SEER_CUDA_API cudaError_t cudaMemsetAsync_ptsz(void* dst, int value, size_t n,
                                               cudaStream_t stream) {
  SEER_ENTER_OP(memcpy_async);
  return fail(call.ts(),
              ops::fill(call.ts(), dst, static_cast<uint8_t>(value), 1, n, stream, true, true));
}

// ---- 2D copies and memsets ----

SEER_CUDA_API cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch,
                                       size_t width, size_t height, cudaMemcpyKind kind) {
  SEER_ENTER_OP(memcpy_sync);
  return fail(call.ts(), ops::copy_2d(call.ts(), dst, dpitch, src, spitch, width, height, kind,
                                      nullptr, false, false));
}

SEER_CUDA_API cudaError_t cudaMemcpy2D_ptds(void* dst, size_t dpitch, const void* src,
                                            size_t spitch, size_t width, size_t height,
                                            cudaMemcpyKind kind) {
  SEER_ENTER_OP(memcpy_sync);
  return fail(call.ts(), ops::copy_2d(call.ts(), dst, dpitch, src, spitch, width, height, kind,
                                      nullptr, false, true));
}

SEER_CUDA_API cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src,
                                            size_t spitch, size_t width, size_t height,
                                            cudaMemcpyKind kind, cudaStream_t stream) {
  SEER_ENTER_OP(memcpy_async);
  return fail(call.ts(), ops::copy_2d(call.ts(), dst, dpitch, src, spitch, width, height, kind,
                                      stream, true, false));
}

SEER_CUDA_API cudaError_t cudaMemcpy2DAsync_ptsz(void* dst, size_t dpitch, const void* src,
                                                 size_t spitch, size_t width, size_t height,
                                                 cudaMemcpyKind kind, cudaStream_t stream) {
  SEER_ENTER_OP(memcpy_async);
  return fail(call.ts(), ops::copy_2d(call.ts(), dst, dpitch, src, spitch, width, height, kind,
                                      stream, true, true));
}

SEER_CUDA_API cudaError_t cudaMemset2D(void* dst, size_t pitch, int value, size_t width,
                                       size_t height) {
  SEER_ENTER_OP(memcpy_async);
  return fail(call.ts(), ops::fill_2d(call.ts(), dst, pitch, static_cast<uint8_t>(value), 1, width,
                                      height, nullptr, false, false));
}

SEER_CUDA_API cudaError_t cudaMemset2D_ptds(void* dst, size_t pitch, int value, size_t width,
                                            size_t height) {
  SEER_ENTER_OP(memcpy_async);
  return fail(call.ts(), ops::fill_2d(call.ts(), dst, pitch, static_cast<uint8_t>(value), 1, width,
                                      height, nullptr, false, true));
}

SEER_CUDA_API cudaError_t cudaMemset2DAsync(void* dst, size_t pitch, int value, size_t width,
                                            size_t height, cudaStream_t stream) {
  SEER_ENTER_OP(memcpy_async);
  return fail(call.ts(), ops::fill_2d(call.ts(), dst, pitch, static_cast<uint8_t>(value), 1, width,
                                      height, stream, true, false));
}

SEER_CUDA_API cudaError_t cudaMemset2DAsync_ptsz(void* dst, size_t pitch, int value, size_t width,
                                                 size_t height, cudaStream_t stream) {
  SEER_ENTER_OP(memcpy_async);
  return fail(call.ts(), ops::fill_2d(call.ts(), dst, pitch, static_cast<uint8_t>(value), 1, width,
                                      height, stream, true, true));
}
