// Sensors and clocks: plausible readings of an idle GPU, from the GPU's catalog properties.
// Nothing runs on a simulated GPU between the program's calls, so these do not follow the load.

#include "state.h"

using namespace seer::nvml;

namespace {

constexpr unsigned kIdleTemperatureC = 34;
constexpr unsigned kIdlePowerMilliwatts = 72000;

}  // namespace

SEER_NVML_API nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device,
                                                    nvmlTemperatureSensors_t sensor,
                                                    unsigned int* celsius) {
  SEER_NVML_DEVICE(device, index);
  if (!celsius || sensor != NVML_TEMPERATURE_GPU) return NVML_ERROR_INVALID_ARGUMENT;
  *celsius = kIdleTemperatureC;
  return NVML_SUCCESS;
}

SEER_NVML_API nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int* milliwatts) {
  SEER_NVML_DEVICE(device, index);
  if (!milliwatts) return NVML_ERROR_INVALID_ARGUMENT;
  *milliwatts = kIdlePowerMilliwatts;
  return NVML_SUCCESS;
}

SEER_NVML_API nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device,
                                                         nvmlUtilization_t* utilization) {
  SEER_NVML_DEVICE(device, index);
  if (!utilization) return NVML_ERROR_INVALID_ARGUMENT;
  *utilization = nvmlUtilization_t{};
  return NVML_SUCCESS;
}

// The catalog's clocks are the boost clocks: reported as both current and maximum (the video
// clock follows the SM clock's scale on these parts).
SEER_NVML_API nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, nvmlClockType_t type,
                                                     unsigned int* mhz) {
  SEER_NVML_DEVICE(device, index);
  if (!mhz) return NVML_ERROR_INVALID_ARGUMENT;
  const unsigned sm = static_cast<unsigned>(gpu(index).clock_khz()) / 1000;
  switch (type) {
    case NVML_CLOCK_GRAPHICS:
    case NVML_CLOCK_SM:
      *mhz = sm;
      return NVML_SUCCESS;
    case NVML_CLOCK_MEM:
      *mhz = static_cast<unsigned>(gpu(index).memory_clock_khz()) / 1000;
      return NVML_SUCCESS;
    case NVML_CLOCK_VIDEO:
      *mhz = sm * 17 / 20;
      return NVML_SUCCESS;
  }
  return NVML_ERROR_INVALID_ARGUMENT;
}

SEER_NVML_API nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type,
                                                  unsigned int* mhz) {
  return nvmlDeviceGetMaxClockInfo(device, type, mhz);
}
