// How GPUs connect: P2P status, NVLink state and far ends, and the multi-node NVLink fabric.
// Seer's nodes connect their GPUs through NVSwitches (the DGX/HGX presets): every NVLink of a
// GPU is active and ends at a switch; GPUs of one node reach each other peer-to-peer, GPUs of
// different nodes do not.

#include <cstdio>
#include <cstring>

#include "state.h"

using namespace seer::nvml;

namespace {

// NVLinks per GPU: 18 from Hopper on (NVLink 4/5), 12 on Ampere (NVLink 3).
unsigned nvlink_count(int index) { return gpu(index).cc_major() >= 9 ? 18u : 12u; }

// The NVSwitch a link ends at: 4 switches per node, links spread over them in turn.
void fill_switch_pci_info(int index, unsigned link, nvmlPciInfo_t* pci) {
  *pci = nvmlPciInfo_t{};
  pci->domain = static_cast<unsigned>(gpu(index).node());
  pci->bus = 0xC0 + (link % 4) * 0x10;
  pci->pciDeviceId = 0x22A3u << 16 | 0x10DE;  // NVSwitch
  std::snprintf(pci->busId, sizeof pci->busId, "%08X:%02X:00.0", pci->domain, pci->bus);
  std::snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04X:%02X:00.0", pci->domain & 0xffff,
                pci->bus);
}

}  // namespace

SEER_NVML_API nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t device1, nvmlDevice_t device2,
                                                  nvmlGpuP2PCapsIndex_t caps,
                                                  nvmlGpuP2PStatus_t* status) {
  SEER_NVML_DEVICE(device1, first);
  const int second = index_of(device2);
  if (second < 0 || !status || caps >= NVML_P2P_CAPS_INDEX_UNKNOWN) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  const bool peers = first != second && gpu(first).node() == gpu(second).node();
  *status = peers ? NVML_P2P_STATUS_OK : NVML_P2P_STATUS_NOT_SUPPORTED;
  return NVML_SUCCESS;
}

SEER_NVML_API nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link,
                                                    nvmlEnableState_t* active) {
  SEER_NVML_DEVICE(device, index);
  if (!active || link >= nvlink_count(index)) return NVML_ERROR_INVALID_ARGUMENT;
  *active = NVML_FEATURE_ENABLED;
  return NVML_SUCCESS;
}

SEER_NVML_API nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device,
                                                               unsigned int link,
                                                               nvmlPciInfo_t* pci) {
  SEER_NVML_DEVICE(device, index);
  if (!pci || link >= nvlink_count(index)) return NVML_ERROR_INVALID_ARGUMENT;
  fill_switch_pci_info(index, link, pci);
  return NVML_SUCCESS;
}

SEER_NVML_API nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo(nvmlDevice_t device, unsigned int link,
                                                            nvmlPciInfo_t* pci) {
  return nvmlDeviceGetNvLinkRemotePciInfo_v2(device, link, pci);
}

SEER_NVML_API nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t device,
                                                               unsigned int link,
                                                               nvmlIntNvLinkDeviceType_t* type) {
  SEER_NVML_DEVICE(device, index);
  if (!type || link >= nvlink_count(index)) return NVML_ERROR_INVALID_ARGUMENT;
  *type = NVML_NVLINK_DEVICE_TYPE_SWITCH;
  return NVML_SUCCESS;
}

// DGX H100 nodes have no multi-node NVLink fabric: the probe state is "not supported".
SEER_NVML_API nvmlReturn_t nvmlDeviceGetGpuFabricInfo(nvmlDevice_t device,
                                                      nvmlGpuFabricInfo_t* info) {
  SEER_NVML_DEVICE(device, index);
  if (!info) return NVML_ERROR_INVALID_ARGUMENT;
  *info = nvmlGpuFabricInfo_t{};
  info->status = NVML_SUCCESS;
  info->state = NVML_GPU_FABRIC_STATE_NOT_SUPPORTED;
  return NVML_SUCCESS;
}

SEER_NVML_API nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device,
                                                       nvmlGpuFabricInfoV_t* info) {
  SEER_NVML_DEVICE(device, index);
  if (!info) return NVML_ERROR_INVALID_ARGUMENT;
  const unsigned version = info->version;
  if (version == nvmlGpuFabricInfo_v3) {
    *info = nvmlGpuFabricInfoV_t{};
  } else if (version == nvmlGpuFabricInfo_v2) {
    std::memset(info, 0, sizeof(nvmlGpuFabricInfo_v2_t));
  } else {
    return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  }
  info->version = version;
  info->status = NVML_SUCCESS;
  info->state = NVML_GPU_FABRIC_STATE_NOT_SUPPORTED;
  return NVML_SUCCESS;
}
