// Memory: simulated device allocations, pinned host memory, copies and memsets as timed ops.
// Bytes move through Payload (the program's data in simulated device memory) at submission.

#include <cstdlib>
#include <cstring>

#include "graph.h"
#include "ops.h"
#include "payload.h"

namespace seer::client::ops {
namespace {

int device_of(const void* p) {
  return DeviceMemory::instance().gpu_of(reinterpret_cast<uint64_t>(p));
}

// Resolves cudaMemcpyDefault and checks the pointers against the declared kind. `span` is the
// extent touched on each side (a 2D copy's last row ends past n * rows).
cudaError_t classify(const void* dst, size_t dst_span, const void* src, size_t src_span,
                     cudaMemcpyKind kind, wire::CopyKind& out, bool& pinned, int& src_gpu,
                     int& dst_gpu) {
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
      out = wire::COPY_H2H;
      pinned = true;
      return cudaSuccess;
    case cudaMemcpyHostToDevice:
      if (wd != Where::kDevice || ws == Where::kDevice) return cudaErrorInvalidValue;
      if (!valid_device_range(dst, dst_span)) return cudaErrorInvalidValue;
      out = wire::COPY_H2D;
      pinned = ws == Where::kPinned;
      return cudaSuccess;
    case cudaMemcpyDeviceToHost:
      if (ws != Where::kDevice || wd == Where::kDevice) return cudaErrorInvalidValue;
      if (!valid_device_range(src, src_span)) return cudaErrorInvalidValue;
      out = wire::COPY_D2H;
      pinned = wd == Where::kPinned;
      return cudaSuccess;
    case cudaMemcpyDeviceToDevice:
      if (ws != Where::kDevice || wd != Where::kDevice) return cudaErrorInvalidValue;
      if (!valid_device_range(src, src_span) || !valid_device_range(dst, dst_span)) {
        return cudaErrorInvalidValue;
      }
      out = src_gpu == dst_gpu ? wire::COPY_D2D : wire::COPY_PEER;
      pinned = true;
      return cudaSuccess;
    default:
      return cudaErrorInvalidMemcpyDirection;
  }
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

// One copy record of `bytes` on the stream; blocks for a synchronous non-D2D copy. `effect`
// moves the bytes (now, or at each replay of a capture).
cudaError_t record_copy(ThreadState& ts, wire::CopyKind ck, uint64_t bytes, bool pinned,
                        int src_gpu, int dst_gpu, const void* stream, bool async, bool per_thread,
                        const std::function<void()>& effect) {
  StreamObj* s = CudaState::instance().resolve_stream(ts, stream, per_thread);
  if (!s) return cudaErrorInvalidResourceHandle;
  PodRecord r;
  r.type = PodRecord::kCopy;
  r.copy_kind = static_cast<uint8_t>(ck);
  r.a = s->id;
  r.b = bytes;
  r.flag_a = pinned;
  r.i0 = src_gpu;
  r.i1 = dst_gpu;
  const bool captured = graph::capturing(s);
  if (cudaError_t e = graph::submit(ts, s, r, effect); e != cudaSuccess) return e;
  // A blocking cudaMemcpy returns when the copy is done, except device-to-device ones.
  if (!async && !captured && ck != wire::COPY_D2D && ck != wire::COPY_PEER) sync_stream(ts, s);
  return cudaSuccess;
}

}  // namespace

Where where(const void* p) {
  const auto a = reinterpret_cast<uint64_t>(p);
  if (DeviceMemory::instance().gpu_of(a) >= 0) return Where::kDevice;
  if (DeviceMemory::instance().is_pinned(a)) return Where::kPinned;
  return Where::kHost;
}

// Adjacent live ranges count as one: pages of an expandable segment are mapped one by one,
// and a tensor may straddle two of them.
bool valid_device_range(const void* p, size_t n) {
  const auto start = reinterpret_cast<uint64_t>(p);
  const uint64_t end = start + n;
  auto a = DeviceMemory::instance().find(start);
  while (a && a->base + a->size < end) {
    const uint64_t next = a->base + a->size;
    a = DeviceMemory::instance().find(next);
    if (a && a->base != next) return false;
  }
  return a.has_value();
}

void note_alloc(ThreadState& ts, int gpu, uint64_t address, uint64_t bytes) {
  note(ts, PodRecord::kAlloc, gpu, address, bytes);
}

void note_free(ThreadState& ts, int gpu, uint64_t address, uint64_t bytes) {
  note(ts, PodRecord::kFree, gpu, address, bytes);
}

cudaError_t copy(ThreadState& ts, void* dst, const void* src, size_t n, cudaMemcpyKind kind,
                 const void* stream, bool async, bool per_thread) {
  if (n == 0) return cudaSuccess;
  if (!dst || !src) return cudaErrorInvalidValue;
  wire::CopyKind ck;
  bool pinned = false;
  int src_gpu = -1, dst_gpu = -1;
  if (cudaError_t e = classify(dst, n, src, n, kind, ck, pinned, src_gpu, dst_gpu);
      e != cudaSuccess) {
    return e;
  }
  if (!CudaState::instance().resolve_stream(ts, stream, per_thread)) {
    return cudaErrorInvalidResourceHandle;
  }
  return record_copy(ts, ck, n, pinned, src_gpu, dst_gpu, stream, async, per_thread,
                     [=] { Payload::instance().copy(dst, src, n, ck); });
}

cudaError_t copy_2d(ThreadState& ts, void* dst, size_t dpitch, const void* src, size_t spitch,
                    size_t width, size_t height, cudaMemcpyKind kind, const void* stream,
                    bool async, bool per_thread) {
  if (width == 0 || height == 0) return cudaSuccess;
  if (!dst || !src || width > dpitch || width > spitch) return cudaErrorInvalidValue;
  const size_t dspan = dpitch * (height - 1) + width, sspan = spitch * (height - 1) + width;
  wire::CopyKind ck;
  bool pinned = false;
  int src_gpu = -1, dst_gpu = -1;
  if (cudaError_t e = classify(dst, dspan, src, sspan, kind, ck, pinned, src_gpu, dst_gpu);
      e != cudaSuccess) {
    return e;
  }
  if (!CudaState::instance().resolve_stream(ts, stream, per_thread)) {
    return cudaErrorInvalidResourceHandle;
  }
  auto effect = [=] {
    for (size_t row = 0; row < height; ++row) {
      Payload::instance().copy(static_cast<char*>(dst) + row * dpitch,
                               static_cast<const char*>(src) + row * spitch, width, ck);
    }
  };
  return record_copy(ts, ck, uint64_t{width} * height, pinned, src_gpu, dst_gpu, stream, async,
                     per_thread, effect);
}

cudaError_t fill(ThreadState& ts, void* dst, uint64_t value, uint32_t elem_bytes, size_t count,
                 const void* stream, bool async, bool per_thread) {
  return fill_2d(ts, dst, count * elem_bytes, value, elem_bytes, count, 1, stream, async,
                 per_thread);
}

cudaError_t fill_2d(ThreadState& ts, void* dst, size_t pitch, uint64_t value, uint32_t elem_bytes,
                    size_t width, size_t height, const void* stream, bool async, bool per_thread) {
  const size_t row_bytes = width * elem_bytes;
  if (row_bytes == 0 || height == 0) return cudaSuccess;
  if (!dst || row_bytes > pitch) return cudaErrorInvalidValue;
  if (!valid_device_range(dst, pitch * (height - 1) + row_bytes)) return cudaErrorInvalidValue;
  StreamObj* s = CudaState::instance().resolve_stream(ts, stream, per_thread);
  if (!s) return cudaErrorInvalidResourceHandle;
  auto effect = [=] {
    for (size_t row = 0; row < height; ++row) {
      char* p = static_cast<char*>(dst) + row * pitch;
      if (elem_bytes == 8) {  // stream write-value ops: two 32-bit halves, little-endian
        for (size_t i = 0; i < width; ++i) {
          Payload::instance().fill(p + 8 * i, static_cast<uint32_t>(value), 4, 1);
          Payload::instance().fill(p + 8 * i + 4, static_cast<uint32_t>(value >> 32), 4, 1);
        }
      } else {
        Payload::instance().fill(p, static_cast<uint32_t>(value), elem_bytes, width);
      }
    }
  };
  PodRecord r;
  r.type = PodRecord::kCopy;
  r.copy_kind = wire::COPY_MEMSET;
  r.a = s->id;
  r.b = uint64_t{row_bytes} * height;
  r.i0 = r.i1 = device_of(dst);
  // cudaMemset on device memory is asynchronous with respect to the host in practice.
  (void)async;
  return graph::submit(ts, s, r, effect);
}

cudaError_t malloc_device(ThreadState& ts, void** ptr, size_t size, int device) {
  if (!ptr) return cudaErrorInvalidValue;
  if (size == 0) {
    *ptr = nullptr;
    return cudaSuccess;
  }
  uint64_t address = 0;
  switch (DeviceMemory::instance().allocate(device, size, address)) {
    case DeviceMemory::AllocResult::kOk:
      break;
    case DeviceMemory::AllocResult::kOutOfMemory:
      return cudaErrorMemoryAllocation;
    case DeviceMemory::AllocResult::kInvalid:
      return cudaErrorInvalidDevice;
  }
  *ptr = reinterpret_cast<void*>(address);
  CudaState::instance().mark_device_active(device);
  auto a = DeviceMemory::instance().find(address);
  note_alloc(ts, device, address, a ? a->size : size);
  return cudaSuccess;
}

cudaError_t free_device(ThreadState& ts, void* ptr) {
  if (!ptr) return cudaSuccess;
  auto a = DeviceMemory::instance().release(reinterpret_cast<uint64_t>(ptr));
  if (!a) return cudaErrorInvalidValue;
  note_free(ts, a->gpu, a->base, a->size);
  return cudaSuccess;
}

cudaError_t malloc_host(void** ptr, size_t size) {
  if (!ptr) return cudaErrorInvalidValue;
  void* p = nullptr;
  if (posix_memalign(&p, 4096, size ? size : 1) != 0) return cudaErrorMemoryAllocation;
  DeviceMemory::instance().add_pinned(reinterpret_cast<uint64_t>(p), size ? size : 1);
  *ptr = p;
  return cudaSuccess;
}

cudaError_t free_host(void* ptr) {
  if (!ptr) return cudaSuccess;
  if (!DeviceMemory::instance().remove_pinned(reinterpret_cast<uint64_t>(ptr))) {
    return cudaErrorInvalidValue;
  }
  std::free(ptr);
  return cudaSuccess;
}

cudaError_t host_register(void* ptr, size_t size) {
  if (!ptr || size == 0) return cudaErrorInvalidValue;
  if (DeviceMemory::instance().is_pinned(reinterpret_cast<uint64_t>(ptr))) {
    return cudaErrorHostMemoryAlreadyRegistered;
  }
  DeviceMemory::instance().add_pinned(reinterpret_cast<uint64_t>(ptr), size);
  return cudaSuccess;
}

cudaError_t host_unregister(void* ptr) {
  if (!ptr || !DeviceMemory::instance().remove_pinned(reinterpret_cast<uint64_t>(ptr))) {
    return cudaErrorHostMemoryNotRegistered;
  }
  return cudaSuccess;
}

}  // namespace seer::client::ops
