#pragma once

// What every NVML entry point shares: the init reference count, the device table (one handle
// per simulated GPU of the Welcome) and the identifiers derived from the GPU properties.

#include <string>

#include "core.h"
#include "nvml_abi.h"
#include "wire.pb.h"

#define SEER_NVML_API extern "C" __attribute__((visibility("default")))

namespace seer::nvml {

// nvmlInit*: joins the session on first use (NVML is often the first library a process calls),
// then counts one more user. DRIVER_NOT_LOADED outside `seer run`.
nvmlReturn_t init();
// nvmlShutdown: one user less; UNINITIALIZED when there was none.
nvmlReturn_t shutdown();
bool initialized();

int device_count();
nvmlDevice_t handle(int index);
// The GPU index of a handle, or -1 when it is not one of ours.
int index_of(nvmlDevice_t device);
const wire::GpuProperties& gpu(int index);

// The identifiers the CUDA runtime also reports, derived the same way (interposer/cudart).
std::string uuid(int index);        // "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
std::string pci_bus_id(int index);  // "00000000:18:00.0" (domain = node)
void fill_pci_info(int index, nvmlPciInfo_t* pci);

// The CUDA driver version the runtime reports (cudaDriverGetVersion), e.g. 13020.
int cuda_driver_version();

// Accounts the call on the calling thread's virtual clock, like every intercepted API call.
class Call {
 public:
  Call() : call_(client::Core::instance(), client::Core::instance().costs().other_call()) {}

 private:
  client::ApiCall call_;
};

}  // namespace seer::nvml

// Entry of a device query: NVML initialised, a valid handle (its index in `index`).
#define SEER_NVML_DEVICE(device, index)                              \
  if (!::seer::nvml::initialized()) return NVML_ERROR_UNINITIALIZED; \
  const int index = ::seer::nvml::index_of(device);                  \
  if (index < 0) return NVML_ERROR_INVALID_ARGUMENT;                 \
  ::seer::nvml::Call seer_nvml_call_;                                \
  (void)seer_nvml_call_;                                             \
  (void)index
