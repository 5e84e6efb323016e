// Devices: count, selection, properties and attributes of the target GPUs, synchronization.

#include <cstdio>
#include <cstring>

#include "activity.h"
#include "api.h"
#include "graph.h"

using namespace seer::cudart;
using seer::client::StreamObj;

SEER_CUDA_API cudaError_t cudaGetDeviceCount(int* count) {
  cudaError_t err = cudaSuccess;
  if (!count) return cudaErrorInvalidValue;
  if (!ready(err)) {
    *count = 0;
    return err;
  }
  ApiCall call(Core::instance(), Core::instance().costs().other_call());
  *count = device_count();
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaSetDevice(int device) {
  SEER_ENTER(other_call);
  if (!valid_device(device)) return fail(call.ts(), cudaErrorInvalidDevice);
  call.ts().device = device;
  CudaState::instance().mark_device_active(device);
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaGetDevice(int* device) {
  SEER_ENTER(other_call);
  if (!device) return fail(call.ts(), cudaErrorInvalidValue);
  *device = call.ts().device;
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaInitDevice(int device, unsigned /*device_flags*/,
                                         unsigned /*flags*/) {
  SEER_ENTER(other_call);
  return valid_device(device) ? cudaSuccess : fail(call.ts(), cudaErrorInvalidDevice);
}

SEER_CUDA_API cudaError_t cudaSetDeviceFlags(unsigned /*flags*/) {
  SEER_ENTER(other_call);
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaGetDeviceFlags(unsigned* flags) {
  SEER_ENTER(other_call);
  if (!flags) return fail(call.ts(), cudaErrorInvalidValue);
  *flags = 0;
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  SEER_ENTER(other_call);
  if (!prop) return fail(call.ts(), cudaErrorInvalidValue);
  if (!valid_device(device)) return fail(call.ts(), cudaErrorInvalidDevice);
  seer::client::ops::fill_properties(prop, device);
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  SEER_ENTER(other_call);
  return fail(call.ts(), seer::client::ops::device_attribute(value, attr, device));
}

SEER_CUDA_API cudaError_t cudaDriverGetVersion(int* version) {
  if (!version) return cudaErrorInvalidValue;
  *version = 13000;
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaRuntimeGetVersion(int* version) {
  if (!version) return cudaErrorInvalidValue;
  *version = CUDART_VERSION;
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaDeviceSynchronize(void) {
  SEER_ENTER(other_call);
  if (cudaError_t e = seer::client::graph::check_unsafe_call(); e != cudaSuccess) {
    return fail(call.ts(), e);
  }
  seer::client::activity::SyncNote note(call.ts(), seer::client::activity::SyncKind::kContext,
                                        call.ts().device);
  seer::wire::Request r;
  r.set_device_sync(call.ts().device);
  Core::instance().request(call.ts(), r);
  for (StreamObj* s : CudaState::instance().streams_of_device(call.ts().device)) {
    s->known_for = UINT64_MAX;
  }
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaDeviceReset(void) {
  SEER_ENTER(other_call);
  seer::wire::Request r;
  r.set_device_sync(call.ts().device);
  Core::instance().request(call.ts(), r);
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaDeviceCanAccessPeer(int* can, int device, int peer) {
  SEER_ENTER(other_call);
  if (!can) return fail(call.ts(), cudaErrorInvalidValue);
  if (!valid_device(device) || !valid_device(peer)) return fail(call.ts(), cudaErrorInvalidDevice);
  *can = device != peer && gpu(device).node() == gpu(peer).node() ? 1 : 0;
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned flags) {
  SEER_ENTER(other_call);
  if (!valid_device(peer)) return fail(call.ts(), cudaErrorInvalidDevice);
  if (flags != 0) return fail(call.ts(), cudaErrorInvalidValue);
  if (gpu(peer).node() != gpu(call.ts().device).node() || peer == call.ts().device) {
    return fail(call.ts(), cudaErrorPeerAccessUnsupported);
  }
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaDeviceDisablePeerAccess(int peer) {
  SEER_ENTER(other_call);
  if (!valid_device(peer)) return fail(call.ts(), cudaErrorInvalidDevice);
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaDeviceGetP2PAttribute(int* value, cudaDeviceP2PAttr attr, int src,
                                                    int dst) {
  SEER_ENTER(other_call);
  if (!value) return fail(call.ts(), cudaErrorInvalidValue);
  if (!valid_device(src) || !valid_device(dst)) return fail(call.ts(), cudaErrorInvalidDevice);
  const bool same = gpu(src).node() == gpu(dst).node() && src != dst;
  switch (attr) {
    case cudaDevP2PAttrPerformanceRank:
      *value = 0;
      break;
    default:
      *value = same ? 1 : 0;
  }
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaDeviceGetPCIBusId(char* bus_id, int len, int device) {
  SEER_ENTER(other_call);
  if (!bus_id || len <= 0) return fail(call.ts(), cudaErrorInvalidValue);
  if (!valid_device(device)) return fail(call.ts(), cudaErrorInvalidDevice);
  std::snprintf(bus_id, static_cast<size_t>(len), "%08X:%02X:00.0",
                static_cast<unsigned>(gpu(device).node()),
                static_cast<unsigned>(gpu(device).pci_bus_id()));
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaDeviceGetByPCIBusId(int* device, const char* bus_id) {
  SEER_ENTER(other_call);
  if (!device || !bus_id) return fail(call.ts(), cudaErrorInvalidValue);
  for (int d = 0; d < device_count(); ++d) {
    char id[32];
    std::snprintf(id, sizeof id, "%08X:%02X:00.0", static_cast<unsigned>(gpu(d).node()),
                  static_cast<unsigned>(gpu(d).pci_bus_id()));
    if (strcasecmp(id, bus_id) == 0) {
      *device = d;
      return cudaSuccess;
    }
  }
  return fail(call.ts(), cudaErrorInvalidDevice);
}

namespace {
size_t g_limits[16] = {1024, 1 << 20, 8 << 20, 2, 2048, 0, 0, 0};
}

SEER_CUDA_API cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value) {
  SEER_ENTER(other_call);
  if (static_cast<unsigned>(limit) >= 16) return fail(call.ts(), cudaErrorUnsupportedLimit);
  g_limits[limit] = value;
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaDeviceGetLimit(size_t* value, cudaLimit limit) {
  SEER_ENTER(other_call);
  if (!value) return fail(call.ts(), cudaErrorInvalidValue);
  if (static_cast<unsigned>(limit) >= 16) return fail(call.ts(), cudaErrorUnsupportedLimit);
  *value = g_limits[limit];
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  SEER_ENTER(other_call);
  if (least) *least = 0;
  if (greatest) *greatest = -5;
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache* config) {
  SEER_ENTER(other_call);
  if (!config) return fail(call.ts(), cudaErrorInvalidValue);
  *config = cudaFuncCachePreferNone;
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache /*config*/) {
  SEER_ENTER(other_call);
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaChooseDevice(int* device, const cudaDeviceProp* prop) {
  SEER_ENTER(other_call);
  if (!device || !prop) return fail(call.ts(), cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}
