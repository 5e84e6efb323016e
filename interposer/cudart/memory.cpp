// Memory: simulated device allocations, pinned host memory, copies and memsets as timed ops.
// Device contents do not exist: device-to-host copies write zeros (deterministic).

#include <cstdlib>
#include <cstring>

#include "api.h"

using namespace seer::cudart;
using seer::client::DeviceMemory;
using seer::client::PodRecord;
using seer::client::StreamObj;

namespace {

enum class Where { kHost, kPinned, kDevice };

Where where(const void* p) {
  const auto a = reinterpret_cast<uint64_t>(p);
  if (DeviceMemory::instance().gpu_of(a) >= 0) return Where::kDevice;
  if (DeviceMemory::instance().is_pinned(a)) return Where::kPinned;
  return Where::kHost;
}

int device_of(const void* p) {
  return DeviceMemory::instance().gpu_of(reinterpret_cast<uint64_t>(p));
}

// Checks a device range lies inside one live allocation.
bool valid_device_range(const void* p, size_t n) {
  auto a = DeviceMemory::instance().find(reinterpret_cast<uint64_t>(p));
  return a && reinterpret_cast<uint64_t>(p) + n <= a->base + a->size;
}

// Resolves cudaMemcpyDefault and checks the pointers against the declared kind.
cudaError_t classify(const void* dst, const void* src, cudaMemcpyKind kind, size_t n,
                     seer::wire::CopyKind& out, bool& pinned, int& src_gpu, int& dst_gpu) {
  const Where ws = where(src), wd = where(dst);
  if (kind == cudaMemcpyDefault) {
    if (ws == Where::kDevice && wd == Where::kDevice) {
      kind = cudaMemcpyDeviceToDevice;
    } else if (ws == Where::kDevice) {
      kind = cudaMemcpyDeviceToHost;
    } else if (wd == Where::kDevice) {
      kind = cudaMemcpyHostToDevice;
    } else {
      kind = cudaMemcpyHostToHost;
    }
  }
  src_gpu = ws == Where::kDevice ? device_of(src) : -1;
  dst_gpu = wd == Where::kDevice ? device_of(dst) : -1;
  switch (kind) {
    case cudaMemcpyHostToHost:
      if (ws == Where::kDevice || wd == Where::kDevice) return cudaErrorInvalidValue;
      out = seer::wire::COPY_H2H;
      pinned = true;
      return cudaSuccess;
    case cudaMemcpyHostToDevice:
      if (wd != Where::kDevice || ws == Where::kDevice) return cudaErrorInvalidValue;
      if (!valid_device_range(dst, n)) return cudaErrorInvalidValue;
      out = seer::wire::COPY_H2D;
      pinned = ws == Where::kPinned;
      return cudaSuccess;
    case cudaMemcpyDeviceToHost:
      if (ws != Where::kDevice || wd == Where::kDevice) return cudaErrorInvalidValue;
      if (!valid_device_range(src, n)) return cudaErrorInvalidValue;
      out = seer::wire::COPY_D2H;
      pinned = wd == Where::kPinned;
      return cudaSuccess;
    case cudaMemcpyDeviceToDevice:
      if (ws != Where::kDevice || wd != Where::kDevice) return cudaErrorInvalidValue;
      if (!valid_device_range(src, n) || !valid_device_range(dst, n)) return cudaErrorInvalidValue;
      out = src_gpu == dst_gpu ? seer::wire::COPY_D2D : seer::wire::COPY_PEER;
      pinned = true;
      return cudaSuccess;
    default:
      return cudaErrorInvalidMemcpyDirection;
  }
}

cudaError_t memcpy_impl(ThreadState& ts, void* dst, const void* src, size_t n, cudaMemcpyKind kind,
                        const void* stream, bool async, bool per_thread) {
  if (n == 0) return cudaSuccess;
  if (!dst || !src) return fail(ts, cudaErrorInvalidValue);
  seer::wire::CopyKind ck;
  bool pinned = false;
  int src_gpu = -1, dst_gpu = -1;
  if (cudaError_t e = classify(dst, src, kind, n, ck, pinned, src_gpu, dst_gpu); e != cudaSuccess) {
    return fail(ts, e);
  }
  StreamObj* s = CudaState::instance().resolve_stream(ts, stream, per_thread);
  if (!s) return fail(ts, cudaErrorInvalidResourceHandle);
  if (ck == seer::wire::COPY_D2H) std::memset(dst, 0, n);
  if (ck == seer::wire::COPY_H2H) std::memmove(dst, src, n);
  PodRecord r;
  r.type = PodRecord::kCopy;
  r.copy_kind = static_cast<uint8_t>(ck);
  r.a = s->id;
  r.b = n;
  r.flag_a = pinned;
  r.i0 = src_gpu;
  r.i1 = dst_gpu;
  submit(ts, s, r);
  // A blocking cudaMemcpy returns when the copy is done, except device-to-device ones.
  if (!async && ck != seer::wire::COPY_D2D && ck != seer::wire::COPY_PEER) sync_stream(ts, s);
  return cudaSuccess;
}

cudaError_t memset_impl(ThreadState& ts, void* dst, size_t n, const void* stream, bool per_thread) {
  if (n == 0) return cudaSuccess;
  if (!dst || !valid_device_range(dst, n)) return fail(ts, cudaErrorInvalidValue);
  StreamObj* s = CudaState::instance().resolve_stream(ts, stream, per_thread);
  if (!s) return fail(ts, cudaErrorInvalidResourceHandle);
  PodRecord r;
  r.type = PodRecord::kCopy;
  r.copy_kind = seer::wire::COPY_MEMSET;
  r.a = s->id;
  r.b = n;
  r.i0 = r.i1 = device_of(dst);
  submit(ts, s, r);
  return cudaSuccess;
}

void note(ThreadState& ts, PodRecord::Type type, int gpu, uint64_t address, uint64_t bytes) {
  PodRecord r;
  r.type = type;
  r.t = ts.clock.load(std::memory_order_relaxed);
  r.i0 = gpu;
  r.a = address;
  r.b = bytes;
  Core::instance().add_record(ts, r);
}

cudaError_t malloc_impl(ThreadState& ts, void** ptr, size_t size, int device) {
  if (!ptr) return fail(ts, cudaErrorInvalidValue);
  if (size == 0) {
    *ptr = nullptr;
    return cudaSuccess;
  }
  uint64_t address = 0;
  switch (DeviceMemory::instance().allocate(device, size, address)) {
    case DeviceMemory::AllocResult::kOk:
      break;
    case DeviceMemory::AllocResult::kOutOfMemory:
      return fail(ts, cudaErrorMemoryAllocation);
    case DeviceMemory::AllocResult::kInvalid:
      return fail(ts, cudaErrorInvalidDevice);
  }
  *ptr = reinterpret_cast<void*>(address);
  auto a = DeviceMemory::instance().find(address);
  note(ts, PodRecord::kAlloc, device, address, a ? a->size : size);
  return cudaSuccess;
}

cudaError_t free_impl(ThreadState& ts, void* ptr) {
  if (!ptr) return cudaSuccess;
  auto a = DeviceMemory::instance().release(reinterpret_cast<uint64_t>(ptr));
  if (!a) return fail(ts, cudaErrorInvalidValue);
  note(ts, PodRecord::kFree, a->gpu, a->base, a->size);
  return cudaSuccess;
}

cudaError_t host_alloc(ThreadState& ts, void** ptr, size_t size) {
  if (!ptr) return fail(ts, cudaErrorInvalidValue);
  void* p = nullptr;
  if (posix_memalign(&p, 4096, size ? size : 1) != 0) return fail(ts, cudaErrorMemoryAllocation);
  DeviceMemory::instance().add_pinned(reinterpret_cast<uint64_t>(p), size ? size : 1);
  *ptr = p;
  return cudaSuccess;
}

}  // namespace

SEER_CUDA_API cudaError_t cudaMalloc(void** ptr, size_t size) {
  SEER_ENTER(malloc);
  return malloc_impl(call.ts(), ptr, size, call.ts().device);
}

SEER_CUDA_API cudaError_t cudaFree(void* ptr) {
  SEER_ENTER(free);
  // cudaFree synchronizes the device before releasing memory.
  if (ptr) {
    seer::wire::Request r;
    r.set_device_sync(call.ts().device);
    Core::instance().request(call.ts(), r);
  }
  return free_impl(call.ts(), ptr);
}

SEER_CUDA_API cudaError_t cudaMallocAsync(void** ptr, size_t size, cudaStream_t stream) {
  SEER_ENTER(malloc);
  if (!CudaState::instance().resolve_stream(call.ts(), stream, false)) {
    return fail(call.ts(), cudaErrorInvalidResourceHandle);
  }
  return malloc_impl(call.ts(), ptr, size, call.ts().device);
}

SEER_CUDA_API cudaError_t cudaMallocAsync_ptsz(void** ptr, size_t size, cudaStream_t stream) {
  return cudaMallocAsync(ptr, size, stream);
}

SEER_CUDA_API cudaError_t cudaFreeAsync(void* ptr, cudaStream_t stream) {
  SEER_ENTER(free);
  if (!CudaState::instance().resolve_stream(call.ts(), stream, false)) {
    return fail(call.ts(), cudaErrorInvalidResourceHandle);
  }
  return free_impl(call.ts(), ptr);
}

SEER_CUDA_API cudaError_t cudaFreeAsync_ptsz(void* ptr, cudaStream_t stream) {
  return cudaFreeAsync(ptr, stream);
}

SEER_CUDA_API cudaError_t cudaMallocHost(void** ptr, size_t size) {
  SEER_ENTER(malloc);
  return host_alloc(call.ts(), ptr, size);
}

SEER_CUDA_API cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned /*flags*/) {
  SEER_ENTER(malloc);
  return host_alloc(call.ts(), ptr, size);
}

SEER_CUDA_API cudaError_t cudaFreeHost(void* ptr) {
  SEER_ENTER(free);
  if (!ptr) return cudaSuccess;
  if (!DeviceMemory::instance().remove_pinned(reinterpret_cast<uint64_t>(ptr))) {
    return fail(call.ts(), cudaErrorInvalidValue);
  }
  std::free(ptr);
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned /*flags*/) {
  SEER_ENTER(other_call);
  if (!ptr || size == 0) return fail(call.ts(), cudaErrorInvalidValue);
  if (DeviceMemory::instance().is_pinned(reinterpret_cast<uint64_t>(ptr))) {
    return fail(call.ts(), cudaErrorHostMemoryAlreadyRegistered);
  }
  DeviceMemory::instance().add_pinned(reinterpret_cast<uint64_t>(ptr), size);
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaHostUnregister(void* ptr) {
  SEER_ENTER(other_call);
  if (!ptr || !DeviceMemory::instance().remove_pinned(reinterpret_cast<uint64_t>(ptr))) {
    return fail(call.ts(), cudaErrorHostMemoryNotRegistered);
  }
  return cudaSuccess;
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
  SEER_ENTER(memcpy_sync);
  return memcpy_impl(call.ts(), dst, src, n, kind, nullptr, false, false);
}

SEER_CUDA_API cudaError_t cudaMemcpy_ptds(void* dst, const void* src, size_t n,
                                          cudaMemcpyKind kind) {
  SEER_ENTER(memcpy_sync);
  return memcpy_impl(call.ts(), dst, src, n, kind, nullptr, false, true);
}

SEER_CUDA_API cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t n, cudaMemcpyKind kind,
                                          cudaStream_t stream) {
  SEER_ENTER(memcpy_async);
  return memcpy_impl(call.ts(), dst, src, n, kind, stream, true, false);
}

SEER_CUDA_API cudaError_t cudaMemcpyAsync_ptsz(void* dst, const void* src, size_t n,
                                               cudaMemcpyKind kind, cudaStream_t stream) {
  SEER_ENTER(memcpy_async);
  return memcpy_impl(call.ts(), dst, src, n, kind, stream, true, true);
}

SEER_CUDA_API cudaError_t cudaMemcpyPeer(void* dst, int dst_device, const void* src, int src_device,
                                         size_t n) {
  SEER_ENTER(memcpy_sync);
  if (device_of(dst) != dst_device || device_of(src) != src_device) {
    return fail(call.ts(), cudaErrorInvalidValue);
  }
  return memcpy_impl(call.ts(), dst, src, n, cudaMemcpyDeviceToDevice, nullptr, false, false);
}

SEER_CUDA_API cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src,
                                              int src_device, size_t n, cudaStream_t stream) {
  SEER_ENTER(memcpy_async);
  if (device_of(dst) != dst_device || device_of(src) != src_device) {
    return fail(call.ts(), cudaErrorInvalidValue);
  }
  return memcpy_impl(call.ts(), dst, src, n, cudaMemcpyDeviceToDevice, stream, true, false);
}

SEER_CUDA_API cudaError_t cudaMemset(void* dst, int /*value*/, size_t n) {
  SEER_ENTER(memcpy_async);
  return memset_impl(call.ts(), dst, n, nullptr, false);
}

SEER_CUDA_API cudaError_t cudaMemset_ptds(void* dst, int /*value*/, size_t n) {
  SEER_ENTER(memcpy_async);
  return memset_impl(call.ts(), dst, n, nullptr, true);
}

SEER_CUDA_API cudaError_t cudaMemsetAsync(void* dst, int /*value*/, size_t n, cudaStream_t stream) {
  SEER_ENTER(memcpy_async);
  return memset_impl(call.ts(), dst, n, stream, false);
}

SEER_CUDA_API cudaError_t cudaMemsetAsync_ptsz(void* dst, int /*value*/, size_t n,
                                               cudaStream_t stream) {
  SEER_ENTER(memcpy_async);
  return memset_impl(call.ts(), dst, n, stream, true);
}
