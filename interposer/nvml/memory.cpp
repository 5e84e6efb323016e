// Device memory as NVML sees it: total, the driver's reserve, BAR1, and the process list.
// The bytes a rank allocates are tracked by the client core per process; NVML answers for the
// whole GPU, so "used" is the context reserve only.

#include "state.h"

using namespace seer::nvml;

namespace {

unsigned long long total_bytes(int index) {
  return static_cast<unsigned long long>(gpu(index).memory_bytes());
}
unsigned long long reserve_bytes(int index) {
  return static_cast<unsigned long long>(gpu(index).context_reserve_bytes());
}

// The BAR1 aperture: the power of two at or above the device memory (128 GiB on an 80 GiB H100).
unsigned long long bar1_bytes(int index) {
  unsigned long long size = 1ull << 28;
  while (size < total_bytes(index)) size <<= 1;
  return size;
}

nvmlReturn_t no_processes(unsigned int* count) {
  if (!count) return NVML_ERROR_INVALID_ARGUMENT;
  *count = 0;
  return NVML_SUCCESS;
}

}  // namespace

SEER_NVML_API nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* memory) {
  SEER_NVML_DEVICE(device, index);
  if (!memory) return NVML_ERROR_INVALID_ARGUMENT;
  memory->total = total_bytes(index);
  memory->used = reserve_bytes(index);
  memory->free = memory->total - memory->used;
  return NVML_SUCCESS;
}

SEER_NVML_API nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device,
                                                      nvmlMemory_v2_t* memory) {
  SEER_NVML_DEVICE(device, index);
  if (!memory) return NVML_ERROR_INVALID_ARGUMENT;
  if (memory->version != nvmlMemory_v2) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  memory->total = total_bytes(index);
  memory->reserved = reserve_bytes(index);
  memory->used = 0;
  memory->free = memory->total - memory->reserved;
  return NVML_SUCCESS;
}

SEER_NVML_API nvmlReturn_t nvmlDeviceGetBAR1MemoryInfo(nvmlDevice_t device,
                                                       nvmlBAR1Memory_t* bar1) {
  SEER_NVML_DEVICE(device, index);
  if (!bar1) return NVML_ERROR_INVALID_ARGUMENT;
  bar1->bar1Total = bar1_bytes(index);
  bar1->bar1Used = 0;
  bar1->bar1Free = bar1->bar1Total;
  return NVML_SUCCESS;
}

// Every rank is a process on this machine, not on the simulated GPU: NVML lists none (torch
// prints this list in its out-of-memory message).
SEER_NVML_API nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device,
                                                                   unsigned int* count,
                                                                   nvmlProcessInfo_t* /*infos*/) {
  SEER_NVML_DEVICE(device, index);
  return no_processes(count);
}

SEER_NVML_API nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t device,
                                                                   unsigned int* count,
                                                                   nvmlProcessInfo_t* infos) {
  return nvmlDeviceGetComputeRunningProcesses_v3(device, count, infos);
}

SEER_NVML_API nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device,
                                                                unsigned int* count,
                                                                nvmlProcessInfo_t* infos) {
  return nvmlDeviceGetComputeRunningProcesses_v3(device, count, infos);
}
