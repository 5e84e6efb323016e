// Device and pinned memory, copies, memsets and pointer queries through the driver API, over
// the runtime's shared operations (client/ops_memory.cpp).

#include <cstring>

#include "api.h"
#include "graph.h"

using namespace seer::driver;
using seer::client::DeviceMemory;

namespace {

template <typename F>
CUresult with_call(seer::client::Time (seer::wire::HostCosts::*cost)() const, F f) {
  CUresult err = CUDA_SUCCESS;
  if (!ready(err)) return err;
  ApiCall call(Core::instance(), (Core::instance().costs().*cost)());
  return to_cu(f(call.ts()));
}

using HC = seer::wire::HostCosts;

CUresult copy(void* dst, const void* src, size_t n, cudaMemcpyKind kind, CUstream stream,
              bool async, bool per_thread) {
  return with_call(async ? &HC::memcpy_async : &HC::memcpy_sync, [&](ThreadState& ts) {
    return ops::copy(ts, dst, src, n, kind, stream, async, per_thread);
  });
}

CUresult fill(CUdeviceptr dst, size_t pitch, uint32_t value, uint32_t elem, size_t width,
              size_t height, CUstream stream, bool async, bool per_thread) {
  return with_call(&HC::memcpy_async, [&](ThreadState& ts) {
    return ops::fill_2d(ts, from_dptr(dst), pitch ? pitch : width * elem, value, elem, width,
                        height, stream, async, per_thread);
  });
}

// Where a CUDA_MEMCPY2D/3D side starts (host, device or unified pointer; arrays unsupported).
const void* side(CUmemorytype type, const void* host, CUdeviceptr device, size_t x, size_t y,
                 size_t z, size_t pitch, size_t height) {
  const char* base = type == CU_MEMORYTYPE_HOST ? static_cast<const char*>(host)
                                                : static_cast<const char*>(from_dptr(device));
  if (!base) return nullptr;
  return base + x + (z * height + y) * pitch;
}

CUresult copy_2d(const CUDA_MEMCPY2D* c, CUstream stream, bool async, bool per_thread) {
  if (!c) return CUDA_ERROR_INVALID_VALUE;
  if (c->srcMemoryType == CU_MEMORYTYPE_ARRAY || c->dstMemoryType == CU_MEMORYTYPE_ARRAY) {
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  const void* src =
      side(c->srcMemoryType, c->srcHost, c->srcDevice, c->srcXInBytes, c->srcY, 0, c->srcPitch, 0);
  void* dst = const_cast<void*>(
      side(c->dstMemoryType, c->dstHost, c->dstDevice, c->dstXInBytes, c->dstY, 0, c->dstPitch, 0));
  const size_t spitch = c->srcPitch ? c->srcPitch : c->WidthInBytes;
  const size_t dpitch = c->dstPitch ? c->dstPitch : c->WidthInBytes;
  return with_call(async ? &HC::memcpy_async : &HC::memcpy_sync, [&](ThreadState& ts) {
    return ops::copy_2d(ts, dst, dpitch, src, spitch, c->WidthInBytes, c->Height, cudaMemcpyDefault,
                        stream, async, per_thread);
  });
}

// A 3D copy, slice by slice (one record per slice).
CUresult copy_3d(const CUDA_MEMCPY3D* c, CUstream stream, bool async, bool per_thread) {
  if (!c) return CUDA_ERROR_INVALID_VALUE;
  if (c->srcMemoryType == CU_MEMORYTYPE_ARRAY || c->dstMemoryType == CU_MEMORYTYPE_ARRAY) {
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  const size_t spitch = c->srcPitch ? c->srcPitch : c->WidthInBytes;
  const size_t dpitch = c->dstPitch ? c->dstPitch : c->WidthInBytes;
  const size_t sheight = c->srcHeight ? c->srcHeight : c->Height;
  const size_t dheight = c->dstHeight ? c->dstHeight : c->Height;
  return with_call(async ? &HC::memcpy_async : &HC::memcpy_sync, [&](ThreadState& ts) {
    for (size_t z = 0; z < c->Depth; ++z) {
      const void* src = side(c->srcMemoryType, c->srcHost, c->srcDevice, c->srcXInBytes, c->srcY,
                             c->srcZ + z, spitch, sheight);
      void* dst = const_cast<void*>(side(c->dstMemoryType, c->dstHost, c->dstDevice, c->dstXInBytes,
                                         c->dstY, c->dstZ + z, dpitch, dheight));
      const bool last = z + 1 == c->Depth;
      const cudaError_t e = ops::copy_2d(ts, dst, dpitch, src, spitch, c->WidthInBytes, c->Height,
                                         cudaMemcpyDefault, stream, async || !last, per_thread);
      if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
  });
}

}  // namespace

SEER_CU_API CUresult cuMemAlloc_v2(CUdeviceptr* dptr, size_t size) {
  SEER_CU_ENTER(malloc);
  if (cudaError_t e = seer::client::graph::check_unsafe_call(); e != cudaSuccess) return to_cu(e);
  if (!dptr || size == 0) return CUDA_ERROR_INVALID_VALUE;
  void* p = nullptr;
  const cudaError_t e = ops::malloc_device(call.ts(), &p, size, call.ts().device);
  if (e == cudaSuccess) *dptr = to_dptr(p);
  return to_cu(e);
}

SEER_CU_API CUresult cuMemAllocPitch_v2(CUdeviceptr* dptr, size_t* pitch, size_t width,
                                        size_t height, unsigned elem) {
  if (!pitch || elem == 0) return CUDA_ERROR_INVALID_VALUE;
  *pitch = (width + 511) / 512 * 512;
  return cuMemAlloc_v2(dptr, *pitch * height);
}

SEER_CU_API CUresult cuMemFree_v2(CUdeviceptr dptr) {
  SEER_CU_ENTER(free);
  if (dptr) ops::sync_device(call.ts(), call.ts().device);
  return to_cu(ops::free_device(call.ts(), from_dptr(dptr)));
}

static CUresult alloc_async(CUdeviceptr* dptr, size_t size, CUstream stream, bool per_thread) {
  SEER_CU_ENTER(malloc);
  if (!dptr) return CUDA_ERROR_INVALID_VALUE;
  if (!CudaState::instance().resolve_stream(call.ts(), stream, per_thread)) {
    return CUDA_ERROR_INVALID_HANDLE;
  }
  void* p = nullptr;
  const cudaError_t e = ops::malloc_device(call.ts(), &p, size, call.ts().device);
  if (e == cudaSuccess) *dptr = to_dptr(p);
  return to_cu(e);
}

static CUresult free_async(CUdeviceptr dptr, CUstream stream, bool per_thread) {
  SEER_CU_ENTER(free);
  if (!CudaState::instance().resolve_stream(call.ts(), stream, per_thread)) {
    return CUDA_ERROR_INVALID_HANDLE;
  }
  return to_cu(ops::free_device(call.ts(), from_dptr(dptr)));
}

SEER_CU_API CUresult cuMemAllocAsync(CUdeviceptr* p, size_t n, CUstream s) {
  return alloc_async(p, n, s, false);
}
SEER_CU_API CUresult cuMemAllocAsync_ptsz(CUdeviceptr* p, size_t n, CUstream s) {
  return alloc_async(p, n, s, true);
}
SEER_CU_API CUresult cuMemAllocFromPoolAsync(CUdeviceptr* p, size_t n, CUmemoryPool, CUstream s) {
  return alloc_async(p, n, s, false);
}
SEER_CU_API CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr* p, size_t n, CUmemoryPool,
                                                  CUstream s) {
  return alloc_async(p, n, s, true);
}
SEER_CU_API CUresult cuMemFreeAsync(CUdeviceptr p, CUstream s) { return free_async(p, s, false); }
SEER_CU_API CUresult cuMemFreeAsync_ptsz(CUdeviceptr p, CUstream s) {
  return free_async(p, s, true);
}

SEER_CU_API CUresult cuMemAllocHost_v2(void** p, size_t size) {
  SEER_CU_ENTER(malloc);
  return to_cu(ops::malloc_host(p, size));
}

SEER_CU_API CUresult cuMemHostAlloc(void** p, size_t size, unsigned /*flags*/) {
  return cuMemAllocHost_v2(p, size);
}

SEER_CU_API CUresult cuMemFreeHost(void* p) {
  SEER_CU_ENTER(free);
  return to_cu(ops::free_host(p));
}

SEER_CU_API CUresult cuMemHostRegister_v2(void* p, size_t size, unsigned /*flags*/) {
  SEER_CU_ENTER(other_call);
  return to_cu(ops::host_register(p, size));
}

SEER_CU_API CUresult cuMemHostRegister(void* p, size_t size, unsigned flags) {
  return cuMemHostRegister_v2(p, size, flags);
}

SEER_CU_API CUresult cuMemHostUnregister(void* p) {
  SEER_CU_ENTER(other_call);
  return to_cu(ops::host_unregister(p));
}

SEER_CU_API CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr* dptr, void* p, unsigned flags) {
  SEER_CU_ENTER(other_call);
  if (!dptr || !p || flags != 0) return CUDA_ERROR_INVALID_VALUE;
  if (ops::where(p) != ops::Where::kPinned) return CUDA_ERROR_INVALID_VALUE;
  *dptr = to_dptr(p);
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuMemHostGetFlags(unsigned* flags, void* p) {
  SEER_CU_ENTER(other_call);
  if (!flags || ops::where(p) != ops::Where::kPinned) return CUDA_ERROR_INVALID_VALUE;
  *flags = 0;
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuMemGetInfo_v2(size_t* free_bytes, size_t* total_bytes) {
  SEER_CU_ENTER(other_call);
  if (!free_bytes || !total_bytes) return CUDA_ERROR_INVALID_VALUE;
  const int d = call.ts().device;
  const DeviceMemory& dm = DeviceMemory::instance();
  *total_bytes = dm.total(d);
  *free_bytes = dm.capacity(d) - dm.used(d);
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuMemGetAddressRange_v2(CUdeviceptr* base, size_t* size, CUdeviceptr dptr) {
  SEER_CU_ENTER(other_call);
  auto a = DeviceMemory::instance().find(dptr);
  if (!a) return CUDA_ERROR_NOT_FOUND;
  if (base) *base = a->base;
  if (size) *size = a->size;
  return CUDA_SUCCESS;
}

// ---- Copies: every 1D form, synchronous (plain and _ptds) and asynchronous (_ptsz) ----

#define SEER_COPY_PAIR(name, Dst, Src, dst_expr, src_expr, kind)     \
  SEER_CU_API CUresult name(Dst dst, Src src, size_t n) {            \
    return copy(dst_expr, src_expr, n, kind, nullptr, false, false); \
  }                                                                  \
  SEER_CU_API CUresult name##_ptds(Dst dst, Src src, size_t n) {     \
    return copy(dst_expr, src_expr, n, kind, nullptr, false, true);  \
  }
#define SEER_COPY_ASYNC_PAIR(name, Dst, Src, dst_expr, src_expr, kind)       \
  SEER_CU_API CUresult name(Dst dst, Src src, size_t n, CUstream s) {        \
    return copy(dst_expr, src_expr, n, kind, s, true, false);                \
  }                                                                          \
  SEER_CU_API CUresult name##_ptsz(Dst dst, Src src, size_t n, CUstream s) { \
    return copy(dst_expr, src_expr, n, kind, s, true, true);                 \
  }

SEER_COPY_PAIR(cuMemcpyHtoD_v2, CUdeviceptr, const void*, from_dptr(dst), src,
               cudaMemcpyHostToDevice)
SEER_COPY_PAIR(cuMemcpyDtoH_v2, void*, CUdeviceptr, dst, from_dptr(src), cudaMemcpyDeviceToHost)
SEER_COPY_PAIR(cuMemcpyDtoD_v2, CUdeviceptr, CUdeviceptr, from_dptr(dst), from_dptr(src),
               cudaMemcpyDeviceToDevice)
SEER_COPY_PAIR(cuMemcpy, CUdeviceptr, CUdeviceptr, from_dptr(dst), from_dptr(src),
               cudaMemcpyDefault)
SEER_COPY_ASYNC_PAIR(cuMemcpyHtoDAsync_v2, CUdeviceptr, const void*, from_dptr(dst), src,
                     cudaMemcpyHostToDevice)
SEER_COPY_ASYNC_PAIR(cuMemcpyDtoHAsync_v2, void*, CUdeviceptr, dst, from_dptr(src),
                     cudaMemcpyDeviceToHost)
SEER_COPY_ASYNC_PAIR(cuMemcpyDtoDAsync_v2, CUdeviceptr, CUdeviceptr, from_dptr(dst), from_dptr(src),
                     cudaMemcpyDeviceToDevice)
SEER_COPY_ASYNC_PAIR(cuMemcpyAsync, CUdeviceptr, CUdeviceptr, from_dptr(dst), from_dptr(src),
                     cudaMemcpyDefault)

static CUresult copy_peer(CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src, CUcontext src_ctx,
                          size_t n, CUstream stream, bool async, bool per_thread) {
  if (!find_context(dst_ctx) || !find_context(src_ctx)) return CUDA_ERROR_INVALID_CONTEXT;
  return copy(from_dptr(dst), from_dptr(src), n, cudaMemcpyDeviceToDevice, stream, async,
              per_thread);
}

SEER_CU_API CUresult cuMemcpyPeer(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc,
                                  size_t n) {
  return copy_peer(d, dc, s, sc, n, nullptr, false, false);
}
SEER_CU_API CUresult cuMemcpyPeer_ptds(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc,
                                       size_t n) {
  return copy_peer(d, dc, s, sc, n, nullptr, false, true);
}
SEER_CU_API CUresult cuMemcpyPeerAsync(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc,
                                       size_t n, CUstream st) {
  return copy_peer(d, dc, s, sc, n, st, true, false);
}
SEER_CU_API CUresult cuMemcpyPeerAsync_ptsz(CUdeviceptr d, CUcontext dc, CUdeviceptr s,
                                            CUcontext sc, size_t n, CUstream st) {
  return copy_peer(d, dc, s, sc, n, st, true, true);
}

SEER_CU_API CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D* c) {
  return copy_2d(c, nullptr, false, false);
}
SEER_CU_API CUresult cuMemcpy2D_v2_ptds(const CUDA_MEMCPY2D* c) {
  return copy_2d(c, nullptr, false, true);
}
SEER_CU_API CUresult cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D* c) {
  return copy_2d(c, nullptr, false, false);
}
SEER_CU_API CUresult cuMemcpy2DUnaligned_v2_ptds(const CUDA_MEMCPY2D* c) {
  return copy_2d(c, nullptr, false, true);
}
SEER_CU_API CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D* c, CUstream s) {
  return copy_2d(c, s, true, false);
}
SEER_CU_API CUresult cuMemcpy2DAsync_v2_ptsz(const CUDA_MEMCPY2D* c, CUstream s) {
  return copy_2d(c, s, true, true);
}
SEER_CU_API CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D* c) {
  return copy_3d(c, nullptr, false, false);
}
SEER_CU_API CUresult cuMemcpy3D_v2_ptds(const CUDA_MEMCPY3D* c) {
  return copy_3d(c, nullptr, false, true);
}
SEER_CU_API CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D* c, CUstream s) {
  return copy_3d(c, s, true, false);
}
SEER_CU_API CUresult cuMemcpy3DAsync_v2_ptsz(const CUDA_MEMCPY3D* c, CUstream s) {
  return copy_3d(c, s, true, true);
}

// ---- Memsets: D8/D16/D32 and their 2D forms, synchronous and asynchronous ----

#define SEER_MEMSET(bits, Value)                                                                   \
  SEER_CU_API CUresult cuMemsetD##bits##_v2(CUdeviceptr d, Value v, size_t n) {                    \
    return fill(d, 0, v, bits / 8, n, 1, nullptr, false, false);                                   \
  }                                                                                                \
  SEER_CU_API CUresult cuMemsetD##bits##_v2_ptds(CUdeviceptr d, Value v, size_t n) {               \
    return fill(d, 0, v, bits / 8, n, 1, nullptr, false, true);                                    \
  }                                                                                                \
  SEER_CU_API CUresult cuMemsetD##bits##Async(CUdeviceptr d, Value v, size_t n, CUstream s) {      \
    return fill(d, 0, v, bits / 8, n, 1, s, true, false);                                          \
  }                                                                                                \
  SEER_CU_API CUresult cuMemsetD##bits##Async_ptsz(CUdeviceptr d, Value v, size_t n, CUstream s) { \
    return fill(d, 0, v, bits / 8, n, 1, s, true, true);                                           \
  }                                                                                                \
  SEER_CU_API CUresult cuMemsetD2D##bits##_v2(CUdeviceptr d, size_t p, Value v, size_t w,          \
                                              size_t h) {                                          \
    return fill(d, p, v, bits / 8, w, h, nullptr, false, false);                                   \
  }                                                                                                \
  SEER_CU_API CUresult cuMemsetD2D##bits##_v2_ptds(CUdeviceptr d, size_t p, Value v, size_t w,     \
                                                   size_t h) {                                     \
    return fill(d, p, v, bits / 8, w, h, nullptr, false, true);                                    \
  }                                                                                                \
  SEER_CU_API CUresult cuMemsetD2D##bits##Async(CUdeviceptr d, size_t p, Value v, size_t w,        \
                                                size_t h, CUstream s) {                            \
    return fill(d, p, v, bits / 8, w, h, s, true, false);                                          \
  }                                                                                                \
  SEER_CU_API CUresult cuMemsetD2D##bits##Async_ptsz(CUdeviceptr d, size_t p, Value v, size_t w,   \
                                                     size_t h, CUstream s) {                       \
    return fill(d, p, v, bits / 8, w, h, s, true, true);                                           \
  }

SEER_MEMSET(8, unsigned char)
SEER_MEMSET(16, unsigned short)
SEER_MEMSET(32, unsigned int)

// ---- Pointer attributes ----

namespace {

// Writes one attribute of `ptr`; CUDA_ERROR_INVALID_VALUE for memory CUDA does not know.
CUresult pointer_attribute(void* data, CUpointer_attribute attr, CUdeviceptr ptr) {
  const void* p = from_dptr(ptr);
  const ops::Where w = ops::where(p);
  auto alloc = DeviceMemory::instance().find(ptr);
  if (w == ops::Where::kHost || (w == ops::Where::kDevice && !alloc)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  const bool device = w == ops::Where::kDevice;
  const int gpu = device ? alloc->gpu : Core::instance().thread().device;
  switch (attr) {
    case CU_POINTER_ATTRIBUTE_CONTEXT:
      *static_cast<CUcontext*>(data) = reinterpret_cast<CUcontext>(primary_context(gpu));
      break;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
      *static_cast<unsigned*>(data) = device ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
      break;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
      *static_cast<CUdeviceptr*>(data) = ptr;
      break;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
      if (device) return CUDA_ERROR_INVALID_VALUE;
      *static_cast<void**>(data) = const_cast<void*>(p);
      break;
    case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
    case CU_POINTER_ATTRIBUTE_MAPPED:
    case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
      *static_cast<int*>(data) = 1;
      break;
    case CU_POINTER_ATTRIBUTE_BUFFER_ID:
      *static_cast<unsigned long long*>(data) = device ? alloc->base : ptr;
      break;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
    case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
      *static_cast<int*>(data) = 0;
      break;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
      *static_cast<int*>(data) = gpu;
      break;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
      *static_cast<CUdeviceptr*>(data) = device ? alloc->base : ptr;
      break;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
      *static_cast<size_t*>(data) = device ? alloc->size : 0;
      break;
    case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
      *static_cast<unsigned long long*>(data) = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
      break;
    case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:
      *static_cast<unsigned*>(data) = CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE;
      break;
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
      *static_cast<void**>(data) = nullptr;
      break;
    default:
      return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

}  // namespace

SEER_CU_API CUresult cuPointerGetAttribute(void* data, CUpointer_attribute attr, CUdeviceptr ptr) {
  SEER_CU_ENTER(other_call);
  if (!data) return CUDA_ERROR_INVALID_VALUE;
  return pointer_attribute(data, attr, ptr);
}

// Like the real driver: unknown memory gives zeros (memory type 0), not an error.
SEER_CU_API CUresult cuPointerGetAttributes(unsigned n, CUpointer_attribute* attrs, void** data,
                                            CUdeviceptr ptr) {
  SEER_CU_ENTER(other_call);
  if (!attrs || !data) return CUDA_ERROR_INVALID_VALUE;
  for (unsigned i = 0; i < n; ++i) {
    if (!data[i]) continue;
    if (pointer_attribute(data[i], attrs[i], ptr) != CUDA_SUCCESS) {
      const bool wide = attrs[i] == CU_POINTER_ATTRIBUTE_DEVICE_POINTER ||
                        attrs[i] == CU_POINTER_ATTRIBUTE_HOST_POINTER ||
                        attrs[i] == CU_POINTER_ATTRIBUTE_CONTEXT ||
                        attrs[i] == CU_POINTER_ATTRIBUTE_BUFFER_ID ||
                        attrs[i] == CU_POINTER_ATTRIBUTE_RANGE_START_ADDR ||
                        attrs[i] == CU_POINTER_ATTRIBUTE_RANGE_SIZE ||
                        attrs[i] == CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES ||
                        attrs[i] == CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE;
      std::memset(data[i], 0, wide ? 8 : 4);
      if (attrs[i] == CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL) *static_cast<int*>(data[i]) = -2;
    }
  }
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuPointerSetAttribute(const void* /*value*/, CUpointer_attribute attr,
                                           CUdeviceptr ptr) {
  SEER_CU_ENTER(other_call);
  if (attr != CU_POINTER_ATTRIBUTE_SYNC_MEMOPS) return CUDA_ERROR_INVALID_VALUE;
  return DeviceMemory::instance().find(ptr) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
