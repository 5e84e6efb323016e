// Devices: count, selection, properties and attributes of the target GPUs, synchronization.

#include <cstdio>
#include <cstring>

#include "api.h"

using namespace seer::cudart;
using seer::client::StreamObj;

namespace {

bool valid_device(int d) { return d >= 0 && d < device_count(); }

void fill_properties(cudaDeviceProp* p, int device) {
  const auto& g = gpu(device);
  std::memset(p, 0, sizeof *p);
  std::snprintf(p->name, sizeof p->name, "%s", g.name().c_str());
  for (int i = 0; i < 16; ++i) p->uuid.bytes[i] = static_cast<char>((device * 31 + i * 7) & 0xff);
  p->totalGlobalMem = static_cast<size_t>(g.memory_bytes());
  p->sharedMemPerBlock = 48 * 1024;
  p->regsPerBlock = 65536;
  p->warpSize = 32;
  p->memPitch = 2147483647;
  p->maxThreadsPerBlock = 1024;
  p->maxThreadsDim[0] = 1024;
  p->maxThreadsDim[1] = 1024;
  p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = 2147483647;
  p->maxGridSize[1] = 65535;
  p->maxGridSize[2] = 65535;
  p->totalConstMem = 65536;
  p->major = g.cc_major();
  p->minor = g.cc_minor();
  p->textureAlignment = 512;
  p->texturePitchAlignment = 32;
  p->multiProcessorCount = g.sm_count();
  p->canMapHostMemory = 1;
  p->concurrentKernels = 1;
  p->ECCEnabled = 1;
  p->pciBusID = g.pci_bus_id();
  p->pciDeviceID = 0;
  p->pciDomainID = g.node();
  p->asyncEngineCount = 2;
  p->unifiedAddressing = 1;
  p->memoryBusWidth = g.memory_bus_width();
  p->l2CacheSize = g.l2_bytes();
  p->persistingL2CacheMaxSize = g.l2_bytes() * 3 / 4;
  p->maxThreadsPerMultiProcessor = g.max_threads_per_sm();
  p->streamPrioritiesSupported = 1;
  p->globalL1CacheSupported = 1;
  p->localL1CacheSupported = 1;
  p->sharedMemPerMultiprocessor = static_cast<size_t>(g.shared_mem_per_sm());
  p->regsPerMultiprocessor = g.regs_per_sm();
  p->managedMemory = 1;
  p->isMultiGpuBoard = 0;
  p->multiGpuBoardGroupID = 0;
  p->hostNativeAtomicSupported = 0;
  p->pageableMemoryAccess = 0;
  p->concurrentManagedAccess = 1;
  p->computePreemptionSupported = 1;
  p->canUseHostPointerForRegisteredMem = 1;
  p->cooperativeLaunch = 1;
  p->sharedMemPerBlockOptin = static_cast<size_t>(g.shared_mem_per_block_optin());
  p->maxBlocksPerMultiProcessor = g.max_blocks_per_sm();
  p->accessPolicyMaxWindowSize = 134213632;
  p->reservedSharedMemPerBlock = 1024;
  p->memoryPoolsSupported = 1;
  p->gpuDirectRDMASupported = 1;
  p->unifiedFunctionPointers = 1;
}

}  // namespace

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
  fill_properties(prop, device);
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  SEER_ENTER(other_call);
  if (!value) return fail(call.ts(), cudaErrorInvalidValue);
  if (!valid_device(device)) return fail(call.ts(), cudaErrorInvalidDevice);
  if (attr <= 0 || attr >= cudaDevAttrMax) return fail(call.ts(), cudaErrorInvalidValue);
  cudaDeviceProp p;
  fill_properties(&p, device);
  const auto& g = gpu(device);
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock:
      *value = p.maxThreadsPerBlock;
      break;
    case cudaDevAttrMaxBlockDimX:
      *value = p.maxThreadsDim[0];
      break;
    case cudaDevAttrMaxBlockDimY:
      *value = p.maxThreadsDim[1];
      break;
    case cudaDevAttrMaxBlockDimZ:
      *value = p.maxThreadsDim[2];
      break;
    case cudaDevAttrMaxGridDimX:
      *value = p.maxGridSize[0];
      break;
    case cudaDevAttrMaxGridDimY:
      *value = p.maxGridSize[1];
      break;
    case cudaDevAttrMaxGridDimZ:
      *value = p.maxGridSize[2];
      break;
    case cudaDevAttrMaxSharedMemoryPerBlock:
      *value = static_cast<int>(p.sharedMemPerBlock);
      break;
    case cudaDevAttrTotalConstantMemory:
      *value = static_cast<int>(p.totalConstMem);
      break;
    case cudaDevAttrWarpSize:
      *value = 32;
      break;
    case cudaDevAttrMaxRegistersPerBlock:
      *value = p.regsPerBlock;
      break;
    case cudaDevAttrClockRate:
      *value = g.clock_khz();
      break;
    case cudaDevAttrMemoryClockRate:
      *value = g.memory_clock_khz();
      break;
    case cudaDevAttrGlobalMemoryBusWidth:
      *value = p.memoryBusWidth;
      break;
    case cudaDevAttrMultiProcessorCount:
      *value = p.multiProcessorCount;
      break;
    case cudaDevAttrL2CacheSize:
      *value = p.l2CacheSize;
      break;
    case cudaDevAttrMaxThreadsPerMultiProcessor:
      *value = p.maxThreadsPerMultiProcessor;
      break;
    case cudaDevAttrComputeCapabilityMajor:
      *value = p.major;
      break;
    case cudaDevAttrComputeCapabilityMinor:
      *value = p.minor;
      break;
    case cudaDevAttrPciBusId:
      *value = p.pciBusID;
      break;
    case cudaDevAttrPciDeviceId:
      *value = p.pciDeviceID;
      break;
    case cudaDevAttrPciDomainId:
      *value = p.pciDomainID;
      break;
    case cudaDevAttrAsyncEngineCount:
      *value = p.asyncEngineCount;
      break;
    case cudaDevAttrUnifiedAddressing:
      *value = 1;
      break;
    case cudaDevAttrConcurrentKernels:
      *value = 1;
      break;
    case cudaDevAttrEccEnabled:
      *value = 1;
      break;
    case cudaDevAttrCanMapHostMemory:
      *value = 1;
      break;
    case cudaDevAttrStreamPrioritiesSupported:
      *value = 1;
      break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
      *value = static_cast<int>(p.sharedMemPerMultiprocessor);
      break;
    case cudaDevAttrMaxRegistersPerMultiprocessor:
      *value = p.regsPerMultiprocessor;
      break;
    case cudaDevAttrManagedMemory:
      *value = 1;
      break;
    case cudaDevAttrConcurrentManagedAccess:
      *value = 1;
      break;
    case cudaDevAttrCooperativeLaunch:
      *value = 1;
      break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin:
      *value = static_cast<int>(p.sharedMemPerBlockOptin);
      break;
    case cudaDevAttrMaxBlocksPerMultiprocessor:
      *value = p.maxBlocksPerMultiProcessor;
      break;
    case cudaDevAttrMemoryPoolsSupported:
      *value = 1;
      break;
    case cudaDevAttrGPUDirectRDMASupported:
      *value = 1;
      break;
    case cudaDevAttrReservedSharedMemoryPerBlock:
      *value = 1024;
      break;
    case cudaDevAttrComputePreemptionSupported:
      *value = 1;
      break;
    case cudaDevAttrGlobalL1CacheSupported:
      *value = 1;
      break;
    case cudaDevAttrLocalL1CacheSupported:
      *value = 1;
      break;
    default:
      *value = 0;
      break;
  }
  return cudaSuccess;
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
