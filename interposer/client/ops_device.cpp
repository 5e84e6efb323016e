// Device properties and attributes of the target GPU, shared by cudaGetDeviceProperties,
// cudaDeviceGetAttribute and the driver's cuDeviceGetAttribute (same enum values).

#include <cstdio>
#include <cstring>

#include "ops.h"

namespace seer::client::ops {
namespace {

// Attributes with no cudaDeviceProp field (CU_DEVICE_ATTRIBUTE_* numbering, which the runtime
// shares). Feature flags follow an H100-class GPU: VMM with POSIX file descriptors, clusters
// and TMA from compute capability 9.0, no fabric handles or multicast.
int extra_attribute(int attr, const wire::GpuProperties& g) {
  const bool hopper = g.cc_major() >= 9;
  switch (attr) {
    case 102:  // VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED
    case 103:  // HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED
    case 110:  // GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED
    case 119:  // MEMPOOL_SUPPORTED_HANDLE_TYPES: POSIX file descriptor
    case 122:  // CAN_USE_64_BIT_STREAM_MEM_OPS
    case 123:  // CAN_USE_STREAM_WAIT_VALUE_NOR
    case 125:  // IPC_EVENT_SUPPORTED
    case 129:  // UNIFIED_FUNCTION_POINTERS
    case 96:   // COOPERATIVE_MULTI_DEVICE_LAUNCH
    case 92:   // CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM
      return 1;
    case 120:  // CLUSTER_LAUNCH
    case 127:  // TENSOR_MAP_ACCESS_SUPPORTED
      return hopper ? 1 : 0;
    case 126:  // MEM_SYNC_DOMAIN_COUNT
      return hopper ? 4 : 1;
    case 134:  // HOST_NUMA_ID
    case 131:  // NUMA_ID
      return -1;
    default:  // includes 128 (fabric handles) and 132 (multicast): not supported
      return 0;
  }
}

}  // namespace

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

cudaError_t device_attribute(int* value, int attr, int device) {
  if (!value) return cudaErrorInvalidValue;
  if (!valid_device(device)) return cudaErrorInvalidDevice;
  if (attr <= 0 || attr >= cudaDevAttrMax) return cudaErrorInvalidValue;
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
    case cudaDevAttrMaxPersistingL2CacheSize:
      *value = p.persistingL2CacheMaxSize;
      break;
    case cudaDevAttrMaxAccessPolicyWindowSize:
      *value = p.accessPolicyMaxWindowSize;
      break;
    default:
      *value = extra_attribute(attr, g);
      break;
  }
  return cudaSuccess;
}

}  // namespace seer::client::ops
