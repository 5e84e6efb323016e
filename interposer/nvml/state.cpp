#include "state.h"

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>

#include "ops.h"

// The device table: one object per simulated GPU; a handle is its address.
struct nvmlDevice_st {
  int index;
};

namespace seer::nvml {
namespace {

using client::Core;

std::atomic<int> g_users{0};
std::once_flag g_table_once;
std::unique_ptr<nvmlDevice_st[]> g_table;
int g_count = 0;

void build_table() {
  g_count = Core::instance().welcome().gpu_count();
  g_table = std::make_unique<nvmlDevice_st[]>(static_cast<size_t>(g_count));
  for (int i = 0; i < g_count; ++i) g_table[i].index = i;
}

}  // namespace

nvmlReturn_t init() {
  if (!Core::instance().ensure_joined()) return NVML_ERROR_DRIVER_NOT_LOADED;
  std::call_once(g_table_once, build_table);
  g_users.fetch_add(1, std::memory_order_acq_rel);
  return NVML_SUCCESS;
}

nvmlReturn_t shutdown() {
  int users = g_users.load(std::memory_order_acquire);
  while (users > 0) {
    if (g_users.compare_exchange_weak(users, users - 1, std::memory_order_acq_rel)) {
      return NVML_SUCCESS;
    }
  }
  return NVML_ERROR_UNINITIALIZED;
}

bool initialized() { return g_users.load(std::memory_order_acquire) > 0; }

int device_count() { return g_count; }

nvmlDevice_t handle(int index) { return &g_table[index]; }

int index_of(nvmlDevice_t device) {
  if (!device || g_count == 0) return -1;
  const auto p = reinterpret_cast<uintptr_t>(device);
  const auto first = reinterpret_cast<uintptr_t>(&g_table[0]);
  const uintptr_t size = sizeof(nvmlDevice_st);
  if (p < first || p >= first + size * static_cast<uintptr_t>(g_count) || (p - first) % size) {
    return -1;
  }
  return device->index;
}

const wire::GpuProperties& gpu(int index) { return Core::instance().welcome().gpus(index); }

std::string uuid(int index) {
  // The runtime's cudaDeviceProp::uuid of the same device, in NVML's text form.
  cudaDeviceProp p;
  client::ops::fill_properties(&p, index);
  unsigned char b[16];
  std::memcpy(b, p.uuid.bytes, sizeof b);
  char text[48];
  std::snprintf(text, sizeof text,
                "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                b[14], b[15]);
  return text;
}

std::string pci_bus_id(int index) {
  char text[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
  std::snprintf(text, sizeof text, "%08X:%02X:00.0", static_cast<unsigned>(gpu(index).node()),
                static_cast<unsigned>(gpu(index).pci_bus_id()));
  return text;
}

void fill_pci_info(int index, nvmlPciInfo_t* pci) {
  const wire::GpuProperties& g = gpu(index);
  *pci = nvmlPciInfo_t{};
  pci->domain = static_cast<unsigned>(g.node());
  pci->bus = static_cast<unsigned>(g.pci_bus_id());
  pci->device = 0;
  // NVIDIA's vendor id with the GPU's device id (H100 SXM5 0x2330, A100 SXM4 0x20B2, ...); the
  // catalog does not carry it, so the compute capability picks a representative one.
  const unsigned device_id = g.cc_major() >= 10 ? 0x2901 : g.cc_major() == 9 ? 0x2330 : 0x20B2;
  pci->pciDeviceId = device_id << 16 | 0x10DE;
  pci->pciSubSystemId = 0x16C110DE;
  std::snprintf(pci->busId, sizeof pci->busId, "%s", pci_bus_id(index).c_str());
  std::snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04X:%02X:00.0", pci->domain & 0xffff,
                pci->bus);
}

int cuda_driver_version() {
  int version = 0;
  cudaDriverGetVersion(&version);
  return version;
}

}  // namespace seer::nvml
