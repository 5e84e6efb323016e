// Library and system queries: init/shutdown, error strings, driver and NVML versions.

#include <cstdio>
#include <cstring>

#include "state.h"

using namespace seer::nvml;

namespace {

// The display driver branch that ships each CUDA driver API version (the R580 driver brought
// CUDA 13.0); nvidia-smi prints both.
const char* driver_version_for(int cuda_version) {
  if (cuda_version >= 13020) return "595.45.04";
  if (cuda_version >= 13010) return "590.44.01";
  return "580.65.06";
}

nvmlReturn_t copy_string(const char* text, char* out, unsigned length) {
  if (!out) return NVML_ERROR_INVALID_ARGUMENT;
  if (std::strlen(text) + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
  std::memcpy(out, text, std::strlen(text) + 1);
  return NVML_SUCCESS;
}

}  // namespace

SEER_NVML_API nvmlReturn_t nvmlInit_v2(void) { return init(); }
SEER_NVML_API nvmlReturn_t nvmlInit(void) { return init(); }
SEER_NVML_API nvmlReturn_t nvmlInitWithFlags(unsigned int /*flags*/) { return init(); }
SEER_NVML_API nvmlReturn_t nvmlShutdown(void) { return shutdown(); }

SEER_NVML_API const char* nvmlErrorString(nvmlReturn_t result) {
  switch (result) {
    case NVML_SUCCESS:
      return "Success";
    case NVML_ERROR_UNINITIALIZED:
      return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT:
      return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED:
      return "Not Supported";
    case NVML_ERROR_NO_PERMISSION:
      return "Insufficient Permissions";
    case NVML_ERROR_ALREADY_INITIALIZED:
      return "Already Initialized";
    case NVML_ERROR_NOT_FOUND:
      return "Not Found";
    case NVML_ERROR_INSUFFICIENT_SIZE:
      return "Insufficient Size";
    case NVML_ERROR_INSUFFICIENT_POWER:
      return "Insufficient External Power";
    case NVML_ERROR_DRIVER_NOT_LOADED:
      return "Driver Not Loaded";
    case NVML_ERROR_TIMEOUT:
      return "Timeout";
    case NVML_ERROR_IRQ_ISSUE:
      return "Interrupt Request Issue";
    case NVML_ERROR_LIBRARY_NOT_FOUND:
      return "NVML Shared Library Not Found";
    case NVML_ERROR_FUNCTION_NOT_FOUND:
      return "Function Not Found";
    case NVML_ERROR_CORRUPTED_INFOROM:
      return "Corrupted infoROM";
    case NVML_ERROR_GPU_IS_LOST:
      return "GPU is lost";
    case NVML_ERROR_RESET_REQUIRED:
      return "GPU requires restart";
    case NVML_ERROR_OPERATING_SYSTEM:
      return "The operating system has blocked the request";
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH:
      return "RM has detected an NVML/RM version mismatch";
    case NVML_ERROR_IN_USE:
      return "In use by another client";
    case NVML_ERROR_MEMORY:
      return "Insufficient Memory";
    case NVML_ERROR_NO_DATA:
      return "No data";
    case NVML_ERROR_VGPU_ECC_NOT_SUPPORTED:
      return "vGPU ECC not supported";
    case NVML_ERROR_INSUFFICIENT_RESOURCES:
      return "Insufficient resources";
    case NVML_ERROR_FREQ_NOT_SUPPORTED:
      return "Frequency not supported";
    case NVML_ERROR_ARGUMENT_VERSION_MISMATCH:
      return "Argument version mismatch";
    case NVML_ERROR_DEPRECATED:
      return "Deprecated";
    case NVML_ERROR_NOT_READY:
      return "Not ready";
    case NVML_ERROR_GPU_NOT_FOUND:
      return "GPU not found";
    case NVML_ERROR_INVALID_STATE:
      return "Invalid state";
    case NVML_ERROR_RESET_TYPE_NOT_SUPPORTED:
      return "Reset type not supported";
    default:
      return "Unknown Error";
  }
}

SEER_NVML_API nvmlReturn_t nvmlSystemGetDriverVersion(char* version, unsigned int length) {
  if (!initialized()) return NVML_ERROR_UNINITIALIZED;
  return copy_string(driver_version_for(cuda_driver_version()), version, length);
}

SEER_NVML_API nvmlReturn_t nvmlSystemGetNVMLVersion(char* version, unsigned int length) {
  if (!initialized()) return NVML_ERROR_UNINITIALIZED;
  char text[NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE];
  std::snprintf(text, sizeof text, "%d.%s", cuda_driver_version() / 1000,
                driver_version_for(cuda_driver_version()));
  return copy_string(text, version, length);
}

SEER_NVML_API nvmlReturn_t nvmlSystemGetCudaDriverVersion(int* version) {
  if (!version) return NVML_ERROR_INVALID_ARGUMENT;
  *version = cuda_driver_version();
  return NVML_SUCCESS;
}

SEER_NVML_API nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int* version) {
  return nvmlSystemGetCudaDriverVersion(version);
}
