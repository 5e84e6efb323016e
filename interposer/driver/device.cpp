// Devices: count, names, UUIDs, memory, attributes (the runtime's table: the two enums share
// values), PCI ids and peer queries of the target GPUs.

#include <strings.h>

#include <cstdio>
#include <cstring>

#include "api.h"

using namespace seer::driver;

namespace {

void bus_id(char* out, size_t len, int device) {
  std::snprintf(out, len, "%08X:%02X:00.0", static_cast<unsigned>(ops::gpu(device).node()),
                static_cast<unsigned>(ops::gpu(device).pci_bus_id()));
}

}  // namespace

SEER_CU_API CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  SEER_CU_ENTER(other_call);
  if (!device) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(ordinal)) return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuDeviceGetCount(int* count) {
  if (!count) return CUDA_ERROR_INVALID_VALUE;
  CUresult err = CUDA_SUCCESS;
  if (!ready(err)) {
    *count = 0;
    return err;
  }
  *count = ops::device_count();
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuDeviceGetName(char* name, int len, CUdevice device) {
  SEER_CU_ENTER(other_call);
  if (!name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(device)) return CUDA_ERROR_INVALID_DEVICE;
  std::snprintf(name, static_cast<size_t>(len), "%s", ops::gpu(device).name().c_str());
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuDeviceGetUuid_v2(CUuuid* uuid, CUdevice device) {
  SEER_CU_ENTER(other_call);
  if (!uuid) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(device)) return CUDA_ERROR_INVALID_DEVICE;
  cudaDeviceProp p;
  ops::fill_properties(&p, device);
  std::memcpy(uuid->bytes, p.uuid.bytes, sizeof uuid->bytes);
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuDeviceGetUuid(CUuuid* uuid, CUdevice device) {
  return cuDeviceGetUuid_v2(uuid, device);
}

SEER_CU_API CUresult cuDeviceGetLuid(char* luid, unsigned* mask, CUdevice device) {
  SEER_CU_ENTER(other_call);
  if (!luid || !mask) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(device)) return CUDA_ERROR_INVALID_DEVICE;
  return CUDA_ERROR_NOT_SUPPORTED;  // Windows only
}

SEER_CU_API CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice device) {
  SEER_CU_ENTER(other_call);
  if (!bytes) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(device)) return CUDA_ERROR_INVALID_DEVICE;
  *bytes = static_cast<size_t>(ops::gpu(device).memory_bytes());
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuDeviceTotalMem(unsigned int* bytes, CUdevice device) {
  size_t total = 0;
  const CUresult r = cuDeviceTotalMem_v2(&total, device);
  if (r == CUDA_SUCCESS) *bytes = static_cast<unsigned>(std::min<size_t>(total, 0xffffffffu));
  return r;
}

SEER_CU_API CUresult cuDeviceGetAttribute(int* value, CUdevice_attribute attr, CUdevice device) {
  SEER_CU_ENTER(other_call);
  return to_cu(ops::device_attribute(value, attr, device));
}

SEER_CU_API CUresult cuDeviceComputeCapability(int* major, int* minor, CUdevice device) {
  SEER_CU_ENTER(other_call);
  if (!major || !minor) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(device)) return CUDA_ERROR_INVALID_DEVICE;
  *major = ops::gpu(device).cc_major();
  *minor = ops::gpu(device).cc_minor();
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuDeviceGetProperties(CUdevprop* prop, CUdevice device) {
  SEER_CU_ENTER(other_call);
  if (!prop) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(device)) return CUDA_ERROR_INVALID_DEVICE;
  cudaDeviceProp p;
  ops::fill_properties(&p, device);
  std::memset(prop, 0, sizeof *prop);
  prop->maxThreadsPerBlock = p.maxThreadsPerBlock;
  for (int i = 0; i < 3; ++i) {
    prop->maxThreadsDim[i] = p.maxThreadsDim[i];
    prop->maxGridSize[i] = p.maxGridSize[i];
  }
  prop->sharedMemPerBlock = static_cast<int>(p.sharedMemPerBlock);
  prop->totalConstantMemory = static_cast<int>(p.totalConstMem);
  prop->SIMDWidth = p.warpSize;
  prop->memPitch = static_cast<int>(p.memPitch);
  prop->regsPerBlock = p.regsPerBlock;
  prop->clockRate = ops::gpu(device).clock_khz();
  prop->textureAlign = static_cast<int>(p.textureAlignment);
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuDeviceGetPCIBusId(char* id, int len, CUdevice device) {
  SEER_CU_ENTER(other_call);
  if (!id || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(device)) return CUDA_ERROR_INVALID_DEVICE;
  bus_id(id, static_cast<size_t>(len), device);
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuDeviceGetByPCIBusId(CUdevice* device, const char* id) {
  SEER_CU_ENTER(other_call);
  if (!device || !id) return CUDA_ERROR_INVALID_VALUE;
  for (int d = 0; d < ops::device_count(); ++d) {
    char mine[32];
    bus_id(mine, sizeof mine, d);
    if (strcasecmp(mine, id) == 0) {
      *device = d;
      return CUDA_SUCCESS;
    }
  }
  return CUDA_ERROR_INVALID_DEVICE;
}

SEER_CU_API CUresult cuDeviceCanAccessPeer(int* can, CUdevice device, CUdevice peer) {
  SEER_CU_ENTER(other_call);
  if (!can) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(device) || !valid_device(peer)) return CUDA_ERROR_INVALID_DEVICE;
  *can = device != peer && ops::gpu(device).node() == ops::gpu(peer).node() ? 1 : 0;
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuDeviceGetP2PAttribute(int* value, CUdevice_P2PAttribute attr, CUdevice src,
                                             CUdevice dst) {
  SEER_CU_ENTER(other_call);
  if (!value) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(src) || !valid_device(dst)) return CUDA_ERROR_INVALID_DEVICE;
  const bool peers = src != dst && ops::gpu(src).node() == ops::gpu(dst).node();
  *value = attr == CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK ? 0 : (peers ? 1 : 0);
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuDeviceGetExecAffinitySupport(int* pi, CUexecAffinityType /*type*/,
                                                    CUdevice device) {
  SEER_CU_ENTER(other_call);
  if (!pi) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(device)) return CUDA_ERROR_INVALID_DEVICE;
  *pi = 0;
  return CUDA_SUCCESS;
}
