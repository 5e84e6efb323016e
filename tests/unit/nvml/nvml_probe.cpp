// Asks NVML what a monitoring tool or PyTorch asks, the way they load it (dlopen by soname,
// symbols by name), and the CUDA runtime for the same devices; prints "RESULT name value" lines.

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "nvml_abi.h"

namespace {

void* g_nvml = nullptr;

template <typename F>
F sym(const char* name) {
  void* p = dlsym(g_nvml, name);
  if (!p) {
    std::printf("RESULT missing_%s 1\n", name);
    std::fflush(stdout);
    std::exit(2);
  }
  return reinterpret_cast<F>(p);
}

#define NVML(name) sym<decltype(&name)>(#name)

std::string cuda_uuid(int device) {
  cudaDeviceProp p;
  if (cudaGetDeviceProperties(&p, device) != cudaSuccess) return "error";
  const auto* b = reinterpret_cast<const unsigned char*>(p.uuid.bytes);
  char text[48];
  std::snprintf(text, sizeof text,
                "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                b[14], b[15]);
  return text;
}

}  // namespace

int main() {
  g_nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!g_nvml) {
    std::printf("RESULT dlopen_error %s\n", dlerror());
    return 1;
  }
  // PyTorch's device_count() calls the v1 name first, before any CUDA call.
  const nvmlReturn_t init = NVML(nvmlInit)();
  std::printf("RESULT init %d\n", init);
  std::printf("RESULT init_text %s\n", NVML(nvmlErrorString)(init));
  if (init != NVML_SUCCESS) return 0;
  NVML(nvmlInit_v2)();

  unsigned count = 0;
  std::printf("RESULT count_rc %d\n", NVML(nvmlDeviceGetCount_v2)(&count));
  std::printf("RESULT count %u\n", count);
  int cuda_count = 0;
  cudaGetDeviceCount(&cuda_count);
  std::printf("RESULT cuda_count %d\n", cuda_count);

  char text[128];
  NVML(nvmlSystemGetDriverVersion)(text, sizeof text);
  std::printf("RESULT driver_version %s\n", text);
  NVML(nvmlSystemGetNVMLVersion)(text, sizeof text);
  std::printf("RESULT nvml_version %s\n", text);
  int cuda_version = 0, nvml_cuda_version = 0;
  cudaDriverGetVersion(&cuda_version);
  NVML(nvmlSystemGetCudaDriverVersion_v2)(&nvml_cuda_version);
  std::printf("RESULT cuda_driver_version %d\nRESULT nvml_cuda_driver_version %d\n", cuda_version,
              nvml_cuda_version);
  std::printf("RESULT small_buffer_rc %d\n", NVML(nvmlSystemGetDriverVersion)(text, 3));

  int uuid_matches = 0, pci_matches = 0, by_pci = 0, by_uuid = 0, index_matches = 0;
  for (unsigned i = 0; i < count; ++i) {
    nvmlDevice_t d = nullptr;
    NVML(nvmlDeviceGetHandleByIndex_v2)(i, &d);
    char uuid[96], pci_id[32];
    NVML(nvmlDeviceGetUUID)(d, uuid, sizeof uuid);
    uuid_matches += cuda_uuid(static_cast<int>(i)) == uuid;
    nvmlPciInfo_t pci;
    NVML(nvmlDeviceGetPciInfo_v3)(d, &pci);
    cudaDeviceGetPCIBusId(pci_id, sizeof pci_id, static_cast<int>(i));
    pci_matches += std::strcmp(pci_id, pci.busId) == 0;
    nvmlDevice_t again = nullptr;
    by_pci +=
        NVML(nvmlDeviceGetHandleByPciBusId_v2)(pci.busId, &again) == NVML_SUCCESS && again == d;
    again = nullptr;
    by_uuid += NVML(nvmlDeviceGetHandleByUUID)(uuid, &again) == NVML_SUCCESS && again == d;
    unsigned index = 99999;
    NVML(nvmlDeviceGetIndex)(d, &index);
    index_matches += index == i;
    if (i == 0 || i + 1 == count) {
      const char* which = i == 0 ? "first" : "last";
      std::printf("RESULT %s_uuid %s\nRESULT %s_pci %s\nRESULT %s_pci_legacy %s\n", which, uuid,
                  which, pci.busId, which, pci.busIdLegacy);
      std::printf("RESULT %s_pci_device_id %08x\n", which, pci.pciDeviceId);
      unsigned minor = 0;
      NVML(nvmlDeviceGetMinorNumber)(d, &minor);
      std::printf("RESULT %s_minor %u\n", which, minor);
    }
  }
  std::printf("RESULT uuid_matches %d\nRESULT pci_matches %d\n", uuid_matches, pci_matches);
  std::printf("RESULT by_pci %d\nRESULT by_uuid %d\nRESULT index_matches %d\n", by_pci, by_uuid,
              index_matches);

  nvmlDevice_t d0 = nullptr, d1 = nullptr, dlast = nullptr;
  NVML(nvmlDeviceGetHandleByIndex)(0, &d0);
  NVML(nvmlDeviceGetHandleByIndex)(1, &d1);
  NVML(nvmlDeviceGetHandleByIndex)(count - 1, &dlast);
  std::printf("RESULT bad_index_rc %d\n", NVML(nvmlDeviceGetHandleByIndex)(count, &d1));
  NVML(nvmlDeviceGetHandleByIndex)(1, &d1);
  nvmlDevice_t bogus = reinterpret_cast<nvmlDevice_t>(&count);
  std::printf("RESULT bogus_handle_rc %d\n", NVML(nvmlDeviceGetName)(bogus, text, sizeof text));
  std::printf("RESULT not_found_rc %d\n",
              NVML(nvmlDeviceGetHandleByPciBusId_v2)("0000ABCD:18:00.0", &bogus));

  NVML(nvmlDeviceGetName)(d0, text, sizeof text);
  std::printf("RESULT name %s\n", text);
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  std::printf("RESULT cuda_name %s\n", prop.name);
  int major = 0, minor = 0;
  NVML(nvmlDeviceGetCudaComputeCapability)(d0, &major, &minor);
  std::printf("RESULT cc %d.%d\nRESULT cuda_cc %d.%d\n", major, minor, prop.major, prop.minor);

  nvmlMemory_t mem;
  NVML(nvmlDeviceGetMemoryInfo)(d0, &mem);
  std::printf("RESULT mem_total %llu\nRESULT mem_free %llu\nRESULT mem_used %llu\n", mem.total,
              mem.free, mem.used);
  nvmlMemory_v2_t mem2{};
  mem2.version = nvmlMemory_v2;
  std::printf("RESULT mem2_rc %d\n", NVML(nvmlDeviceGetMemoryInfo_v2)(d0, &mem2));
  std::printf("RESULT mem2_total %llu\nRESULT mem2_free %llu\nRESULT mem2_reserved %llu\n",
              mem2.total, mem2.free, mem2.reserved);
  mem2.version = 1;
  std::printf("RESULT mem2_bad_version_rc %d\n", NVML(nvmlDeviceGetMemoryInfo_v2)(d0, &mem2));
  std::printf("RESULT cuda_total_mem %zu\n", prop.totalGlobalMem);
  nvmlBAR1Memory_t bar1;
  NVML(nvmlDeviceGetBAR1MemoryInfo)(d0, &bar1);
  std::printf("RESULT bar1_total %llu\n", bar1.bar1Total);

  unsigned procs = 5;
  std::printf("RESULT procs_rc %d\n",
              NVML(nvmlDeviceGetComputeRunningProcesses_v3)(d0, &procs, nullptr));
  std::printf("RESULT procs %u\n", procs);

  nvmlGpuP2PStatus_t p2p = NVML_P2P_STATUS_UNKNOWN;
  NVML(nvmlDeviceGetP2PStatus)(d0, d1, NVML_P2P_CAPS_INDEX_READ, &p2p);
  std::printf("RESULT p2p_same_node %d\n", p2p);
  NVML(nvmlDeviceGetP2PStatus)(d0, dlast, NVML_P2P_CAPS_INDEX_NVLINK, &p2p);
  std::printf("RESULT p2p_first_last %d\n", p2p);
  int can = -1;
  cudaDeviceCanAccessPeer(&can, 0, static_cast<int>(count - 1));
  std::printf("RESULT cuda_peer_first_last %d\n", can);

  int links = 0;
  for (unsigned link = 0; link < NVML_NVLINK_MAX_LINKS; ++link) {
    nvmlEnableState_t active = NVML_FEATURE_DISABLED;
    if (NVML(nvmlDeviceGetNvLinkState)(d0, link, &active) == NVML_SUCCESS &&
        active == NVML_FEATURE_ENABLED) {
      ++links;
    }
  }
  std::printf("RESULT nvlinks %d\n", links);
  nvmlIntNvLinkDeviceType_t type = NVML_NVLINK_DEVICE_TYPE_UNKNOWN;
  NVML(nvmlDeviceGetNvLinkRemoteDeviceType)(d0, 0, &type);
  std::printf("RESULT nvlink_remote_type %d\n", type);
  nvmlPciInfo_t remote;
  std::printf("RESULT nvlink_remote_pci_rc %d\n",
              NVML(nvmlDeviceGetNvLinkRemotePciInfo_v2)(d0, 0, &remote));

  nvmlGpuFabricInfoV_t fabric{};
  fabric.version = nvmlGpuFabricInfo_v3;
  fabric.state = 3;
  std::printf("RESULT fabric_rc %d\n", NVML(nvmlDeviceGetGpuFabricInfoV)(d0, &fabric));
  std::printf("RESULT fabric_state %d\n", fabric.state);

  unsigned mhz = 0;
  NVML(nvmlDeviceGetMaxClockInfo)(d0, NVML_CLOCK_SM, &mhz);
  std::printf("RESULT sm_clock_mhz %u\n", mhz);
  int cuda_clock_khz = 0;
  cudaDeviceGetAttribute(&cuda_clock_khz, cudaDevAttrClockRate, 0);
  std::printf("RESULT cuda_clock_khz %d\n", cuda_clock_khz);
  unsigned temperature = 0, power = 0;
  NVML(nvmlDeviceGetTemperature)(d0, NVML_TEMPERATURE_GPU, &temperature);
  NVML(nvmlDeviceGetPowerUsage)(d0, &power);
  std::printf("RESULT temperature %u\nRESULT power_mw %u\n", temperature, power);

  // A function Seer does not implement: the stub's error, reported once on stderr.
  using SerialFn = nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned);
  auto serial = reinterpret_cast<SerialFn>(dlsym(g_nvml, "nvmlDeviceGetSerial"));
  std::printf("RESULT serial_rc %d\n", serial ? serial(d0, text, sizeof text) : -1);

  std::printf("RESULT shutdown1 %d\n", NVML(nvmlShutdown)());
  std::printf("RESULT shutdown2 %d\n", NVML(nvmlShutdown)());
  std::printf("RESULT shutdown3 %d\n", NVML(nvmlShutdown)());
  std::printf("RESULT after_shutdown %d\n", NVML(nvmlDeviceGetCount_v2)(&count));
  return 0;
}
