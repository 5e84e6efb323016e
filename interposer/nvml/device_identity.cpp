// Which devices there are and what they are: count, handles, names, UUIDs, PCI and indices.

#include <strings.h>

#include <cstdio>
#include <cstring>

#include "state.h"

using namespace seer::nvml;

namespace {

nvmlReturn_t copy_string(const std::string& text, char* out, unsigned length) {
  if (!out) return NVML_ERROR_INVALID_ARGUMENT;
  if (text.size() + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
  std::memcpy(out, text.c_str(), text.size() + 1);
  return NVML_SUCCESS;
}

// "domain:bus:device.function" or "bus:device.function", hexadecimal, as NVML accepts them.
bool parse_bus_id(const char* text, unsigned& domain, unsigned& bus, unsigned& device) {
  unsigned function = 0;
  char tail = 0;
  if (std::sscanf(text, "%x:%x:%x.%x%c", &domain, &bus, &device, &function, &tail) == 4) {
    return true;
  }
  domain = 0;
  return std::sscanf(text, "%x:%x.%x%c", &bus, &device, &function, &tail) == 3;
}

}  // namespace

SEER_NVML_API nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count) {
  if (!initialized()) return NVML_ERROR_UNINITIALIZED;
  if (!count) return NVML_ERROR_INVALID_ARGUMENT;
  Call call;
  *count = static_cast<unsigned>(device_count());
  return NVML_SUCCESS;
}

SEER_NVML_API nvmlReturn_t nvmlDeviceGetCount(unsigned int* count) {
  return nvmlDeviceGetCount_v2(count);
}

SEER_NVML_API nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
  if (!initialized()) return NVML_ERROR_UNINITIALIZED;
  if (!device || index >= static_cast<unsigned>(device_count())) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  Call call;
  *device = handle(static_cast<int>(index));
  return NVML_SUCCESS;
}

SEER_NVML_API nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t* device) {
  return nvmlDeviceGetHandleByIndex_v2(index, device);
}

SEER_NVML_API nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char* bus_id,
                                                            nvmlDevice_t* device) {
  if (!initialized()) return NVML_ERROR_UNINITIALIZED;
  unsigned domain = 0, bus = 0, dev = 0;
  if (!bus_id || !device || !parse_bus_id(bus_id, domain, bus, dev)) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  Call call;
  for (int i = 0; i < device_count(); ++i) {
    if (static_cast<unsigned>(gpu(i).node()) == domain &&
        static_cast<unsigned>(gpu(i).pci_bus_id()) == bus && dev == 0) {
      *device = handle(i);
      return NVML_SUCCESS;
    }
  }
  return NVML_ERROR_NOT_FOUND;
}

SEER_NVML_API nvmlReturn_t nvmlDeviceGetHandleByPciBusId(const char* bus_id, nvmlDevice_t* device) {
  return nvmlDeviceGetHandleByPciBusId_v2(bus_id, device);
}

SEER_NVML_API nvmlReturn_t nvmlDeviceGetHandleByUUID(const char* text, nvmlDevice_t* device) {
  if (!initialized()) return NVML_ERROR_UNINITIALIZED;
  if (!text || !device) return NVML_ERROR_INVALID_ARGUMENT;
  Call call;
  for (int i = 0; i < device_count(); ++i) {
    if (strcasecmp(uuid(i).c_str(), text) == 0) {
      *device = handle(i);
      return NVML_SUCCESS;
    }
  }
  return NVML_ERROR_NOT_FOUND;
}

SEER_NVML_API nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char* name, unsigned int length) {
  SEER_NVML_DEVICE(device, index);
  return copy_string(gpu(index).name(), name, length);
}

SEER_NVML_API nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char* text, unsigned int length) {
  SEER_NVML_DEVICE(device, index);
  return copy_string(uuid(index), text, length);
}

SEER_NVML_API nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int* out) {
  SEER_NVML_DEVICE(device, index);
  if (!out) return NVML_ERROR_INVALID_ARGUMENT;
  *out = static_cast<unsigned>(index);
  return NVML_SUCCESS;
}

SEER_NVML_API nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int* minor) {
  SEER_NVML_DEVICE(device, index);
  if (!minor) return NVML_ERROR_INVALID_ARGUMENT;
  *minor = static_cast<unsigned>(gpu(index).local_index());  // /dev/nvidiaN of its node
  return NVML_SUCCESS;
}

SEER_NVML_API nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t* pci) {
  SEER_NVML_DEVICE(device, index);
  if (!pci) return NVML_ERROR_INVALID_ARGUMENT;
  fill_pci_info(index, pci);
  return NVML_SUCCESS;
}

SEER_NVML_API nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfo_t* pci) {
  return nvmlDeviceGetPciInfo_v3(device, pci);
}

SEER_NVML_API nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t device, nvmlPciInfo_t* pci) {
  return nvmlDeviceGetPciInfo_v3(device, pci);
}

SEER_NVML_API nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int* major,
                                                              int* minor) {
  SEER_NVML_DEVICE(device, index);
  if (!major || !minor) return NVML_ERROR_INVALID_ARGUMENT;
  *major = gpu(index).cc_major();
  *minor = gpu(index).cc_minor();
  return NVML_SUCCESS;
}
