// Virtual memory management (PyTorch's expandable segments): reserved address ranges, physical
// allocations counted against the GPU's capacity, mappings that make a range live device memory
// (client/device_memory.h does the bookkeeping), shareable handles as memfds.

#include <sys/mman.h>
#include <unistd.h>

#include <map>
#include <mutex>

#include "api.h"

using namespace seer::driver;
using seer::client::DeviceMemory;

namespace {

constexpr uint64_t kShareMagic = 0x53454552564d4d31ull;  // "SEERVMM1"

struct Handle {
  CUmemAllocationProp prop{};
  uint64_t size = 0;
  bool counted = false;  // sent an Alloc record (not for imported handles)
};

struct Mapping {
  uint64_t size;
  CUmemGenericAllocationHandle handle;
};

struct ShareBlob {
  uint64_t magic;
  int64_t pid;
  uint64_t handle;
  uint64_t size;
  int32_t gpu;
};

std::mutex g_mu;
std::map<CUmemGenericAllocationHandle, Handle> g_handles;
std::map<uint64_t, Mapping> g_mappings;  // address -> mapping

bool valid_prop(const CUmemAllocationProp* prop) {
  return prop && prop->type == CU_MEM_ALLOCATION_TYPE_PINNED &&
         prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE && valid_device(prop->location.id);
}

CUresult from_alloc(DeviceMemory::AllocResult r) {
  switch (r) {
    case DeviceMemory::AllocResult::kOk:
      return CUDA_SUCCESS;
    case DeviceMemory::AllocResult::kOutOfMemory:
      return CUDA_ERROR_OUT_OF_MEMORY;
    default:
      return CUDA_ERROR_INVALID_VALUE;
  }
}

}  // namespace

SEER_CU_API CUresult cuMemGetAllocationGranularity(size_t* granularity,
                                                   const CUmemAllocationProp* prop,
                                                   CUmemAllocationGranularity_flags /*option*/) {
  SEER_CU_ENTER(other_call);
  if (!granularity || !valid_prop(prop)) return CUDA_ERROR_INVALID_VALUE;
  *granularity = DeviceMemory::kVmmGranularity;
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuMemAddressReserve(CUdeviceptr* ptr, size_t size, size_t alignment,
                                         CUdeviceptr /*addr*/, unsigned long long flags) {
  SEER_CU_ENTER(other_call);
  if (!ptr || size == 0 || flags != 0 || size % DeviceMemory::kVmmGranularity != 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  uint64_t address = 0;
  const CUresult r = from_alloc(
      DeviceMemory::instance().reserve_address(call.ts().device, size, alignment, address));
  if (r == CUDA_SUCCESS) *ptr = address;
  return r;
}

SEER_CU_API CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size) {
  SEER_CU_ENTER(other_call);
  return DeviceMemory::instance().free_address(ptr, size) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

SEER_CU_API CUresult cuMemCreate(CUmemGenericAllocationHandle* out, size_t size,
                                 const CUmemAllocationProp* prop, unsigned long long flags) {
  SEER_CU_ENTER(malloc);
  if (!out || size == 0 || flags != 0 || !valid_prop(prop) ||
      size % DeviceMemory::kVmmGranularity != 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  const int gpu = prop->location.id;
  uint64_t handle = 0;
  const CUresult r = from_alloc(DeviceMemory::instance().create_physical(gpu, size, handle));
  if (r != CUDA_SUCCESS) return r;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    g_handles[handle] = Handle{*prop, size, true};
  }
  CudaState::instance().mark_device_active(gpu);
  ops::note_alloc(call.ts(), gpu, handle, size);
  *out = handle;
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuMemRelease(CUmemGenericAllocationHandle handle) {
  SEER_CU_ENTER(free);
  Handle h;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    auto it = g_handles.find(handle);
    if (it == g_handles.end()) return CUDA_ERROR_INVALID_VALUE;
    h = it->second;
    g_handles.erase(it);
  }
  if (!DeviceMemory::instance().release_physical(handle)) return CUDA_ERROR_INVALID_VALUE;
  if (h.counted) ops::note_free(call.ts(), h.prop.location.id, handle, h.size);
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
                              CUmemGenericAllocationHandle handle, unsigned long long flags) {
  SEER_CU_ENTER(other_call);
  if (flags != 0 || size == 0) return CUDA_ERROR_INVALID_VALUE;
  if (!DeviceMemory::instance().map(ptr, size, offset, handle)) return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> lock(g_mu);
  g_mappings[ptr] = Mapping{size, handle};
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuMemUnmap(CUdeviceptr ptr, size_t size) {
  SEER_CU_ENTER(other_call);
  // The device may still be using the range: real CUDA synchronizes here too.
  if (auto a = DeviceMemory::instance().find(ptr)) ops::sync_device(call.ts(), a->gpu);
  if (!DeviceMemory::instance().unmap(ptr, size)) return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> lock(g_mu);
  g_mappings.erase(g_mappings.lower_bound(ptr), g_mappings.lower_bound(ptr + size));
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc* desc,
                                    size_t count) {
  SEER_CU_ENTER(other_call);
  if (!desc || count == 0) return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; i < count; ++i) {
    if (desc[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
        !valid_device(desc[i].location.id)) {
      return CUDA_ERROR_INVALID_DEVICE;
    }
  }
  return ops::valid_device_range(from_dptr(ptr), size) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

SEER_CU_API CUresult cuMemGetAccess(unsigned long long* flags, const CUmemLocation* location,
                                    CUdeviceptr ptr) {
  SEER_CU_ENTER(other_call);
  if (!flags || !location) return CUDA_ERROR_INVALID_VALUE;
  *flags = DeviceMemory::instance().find(ptr) ? CU_MEM_ACCESS_FLAGS_PROT_READWRITE
                                              : CU_MEM_ACCESS_FLAGS_PROT_NONE;
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle* out, void* addr) {
  SEER_CU_ENTER(other_call);
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  const auto a = reinterpret_cast<uint64_t>(addr);
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = g_mappings.upper_bound(a);
  if (it == g_mappings.begin()) return CUDA_ERROR_INVALID_VALUE;
  --it;
  if (a >= it->first + it->second.size) return CUDA_ERROR_INVALID_VALUE;
  *out = it->second.handle;
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp* prop,
                                                            CUmemGenericAllocationHandle handle) {
  SEER_CU_ENTER(other_call);
  if (!prop) return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = g_handles.find(handle);
  if (it == g_handles.end()) return CUDA_ERROR_INVALID_VALUE;
  *prop = it->second.prop;
  return CUDA_SUCCESS;
}

// A POSIX file descriptor of a memfd holding what identifies the allocation.
SEER_CU_API CUresult cuMemExportToShareableHandle(void* shareable,
                                                  CUmemGenericAllocationHandle handle,
                                                  CUmemAllocationHandleType type,
                                                  unsigned long long flags) {
  SEER_CU_ENTER(other_call);
  if (!shareable || flags != 0) return CUDA_ERROR_INVALID_VALUE;
  if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) return CUDA_ERROR_NOT_SUPPORTED;
  ShareBlob blob{kShareMagic, getpid(), handle, 0, 0};
  {
    std::lock_guard<std::mutex> lock(g_mu);
    auto it = g_handles.find(handle);
    if (it == g_handles.end()) return CUDA_ERROR_INVALID_VALUE;
    blob.size = it->second.size;
    blob.gpu = it->second.prop.location.id;
  }
  const int fd = memfd_create("seer-cuda-vmm", MFD_CLOEXEC);
  if (fd < 0) return CUDA_ERROR_OUT_OF_MEMORY;
  if (pwrite(fd, &blob, sizeof blob, 0) != static_cast<ssize_t>(sizeof blob)) {
    close(fd);
    return CUDA_ERROR_OPERATING_SYSTEM;
  }
  *static_cast<int*>(shareable) = fd;
  return CUDA_SUCCESS;
}

// In the exporting process the handle itself; in another one, a physical allocation of the same
// size on the same GPU (counted in this process only: the session already counts the exporter's).
SEER_CU_API CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle* out,
                                                    void* os_handle,
                                                    CUmemAllocationHandleType type) {
  SEER_CU_ENTER(other_call);
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) return CUDA_ERROR_NOT_SUPPORTED;
  const int fd = static_cast<int>(reinterpret_cast<intptr_t>(os_handle));
  ShareBlob blob{};
  if (pread(fd, &blob, sizeof blob, 0) != static_cast<ssize_t>(sizeof blob) ||
      blob.magic != kShareMagic) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  std::lock_guard<std::mutex> lock(g_mu);
  if (blob.pid == getpid() && g_handles.count(blob.handle)) {
    *out = blob.handle;
    return CUDA_SUCCESS;
  }
  uint64_t handle = 0;
  const CUresult r =
      from_alloc(DeviceMemory::instance().create_physical(blob.gpu, blob.size, handle));
  if (r != CUDA_SUCCESS) return r;
  Handle h;
  h.prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  h.prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  h.prop.location.id = blob.gpu;
  h.prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  h.size = blob.size;
  g_handles[handle] = h;
  *out = handle;
  return CUDA_SUCCESS;
}
