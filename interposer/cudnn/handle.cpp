// cuDNN handles, streams, versions, error texts and the logging callback.

#include "handle.h"

#include <cuda_runtime_api.h>

#include <cstring>
#include <mutex>
#include <unordered_set>

#include "core.h"
#include "submit.h"
#include "types.h"

using namespace seer::cudnn;

namespace {

std::mutex g_mu;
std::unordered_set<const cudnnContext*>& handles() {
  static auto* s = new std::unordered_set<const cudnnContext*>();
  return *s;
}

struct Callback {
  unsigned mask = 0;
  void* data = nullptr;
  cudnnCallback_t fn = nullptr;
};
Callback g_callback;

}  // namespace

namespace seer::cudnn {

cudnnContext* live(cudnnHandle_t h) {
  if (!h) return nullptr;
  std::lock_guard<std::mutex> lock(g_mu);
  return handles().count(h) ? h : nullptr;
}

}  // namespace seer::cudnn

SEER_CUDNN_API cudnnStatus_t cudnnCreate(cudnnHandle_t* handle) {
  if (!handle) return fail(CUDNN_STATUS_BAD_PARAM, "cudnnCreate: handle is null");
  if (!joined()) return fail(CUDNN_STATUS_NOT_INITIALIZED, "cudnnCreate: no Seer session");
  charge_host_call();
  auto* h = new cudnnContext();
  h->device = seer::client::Core::instance().thread().device;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    handles().insert(h);
  }
  *handle = h;
  return CUDNN_STATUS_SUCCESS;
}

// cuDNN documents that destroying a handle synchronizes the device.
SEER_CUDNN_API cudnnStatus_t cudnnDestroy(cudnnHandle_t handle) {
  {
    std::lock_guard<std::mutex> lock(g_mu);
    if (!handle || !handles().erase(handle)) {
      return fail(CUDNN_STATUS_BAD_PARAM, "cudnnDestroy: not a live handle");
    }
  }
  delete handle;
  cudaDeviceSynchronize();
  return CUDNN_STATUS_SUCCESS;
}

SEER_CUDNN_API cudnnStatus_t cudnnSetStream(cudnnHandle_t handle, cudaStream_t stream) {
  cudnnContext* h = live(handle);
  if (!h) return fail(CUDNN_STATUS_BAD_PARAM, "cudnnSetStream: not a live handle");
  h->stream = stream;
  return CUDNN_STATUS_SUCCESS;
}

SEER_CUDNN_API cudnnStatus_t cudnnGetStream(cudnnHandle_t handle, cudaStream_t* stream) {
  cudnnContext* h = live(handle);
  if (!h || !stream) return fail(CUDNN_STATUS_BAD_PARAM, "cudnnGetStream: bad argument");
  *stream = h->stream;
  return CUDNN_STATUS_SUCCESS;
}

SEER_CUDNN_API size_t cudnnGetVersion(void) { return kVersion; }

SEER_CUDNN_API size_t cudnnGetMaxDeviceVersion(void) { return CUDNN_MAX_DEVICE_VERSION; }

SEER_CUDNN_API size_t cudnnGetCudartVersion(void) { return kCudartVersion; }

SEER_CUDNN_API cudnnStatus_t cudnnGetProperty(libraryPropertyType type, int* value) {
  if (!value) return fail(CUDNN_STATUS_BAD_PARAM, "cudnnGetProperty: value is null");
  switch (type) {
    case MAJOR_VERSION:
      *value = kMajor;
      return CUDNN_STATUS_SUCCESS;
    case MINOR_VERSION:
      *value = kMinor;
      return CUDNN_STATUS_SUCCESS;
    case PATCH_LEVEL:
      *value = kPatch;
      return CUDNN_STATUS_SUCCESS;
  }
  return fail(CUDNN_STATUS_BAD_PARAM, "cudnnGetProperty: unknown property");
}

// The sub-libraries are all here: every version check passes.
SEER_CUDNN_API cudnnStatus_t cudnnGraphVersionCheck(void) { return CUDNN_STATUS_SUCCESS; }
SEER_CUDNN_API cudnnStatus_t cudnnOpsVersionCheck(void) { return CUDNN_STATUS_SUCCESS; }
SEER_CUDNN_API cudnnStatus_t cudnnCnnVersionCheck(void) { return CUDNN_STATUS_SUCCESS; }
SEER_CUDNN_API cudnnStatus_t cudnnAdvVersionCheck(void) { return CUDNN_STATUS_SUCCESS; }

SEER_CUDNN_API const char* cudnnGetErrorString(cudnnStatus_t status) { return status_name(status); }

SEER_CUDNN_API void cudnnGetLastErrorString(char* message, size_t max_size) {
  if (!message || max_size == 0) return;
  std::strncpy(message, last_error(), max_size - 1);
  message[max_size - 1] = '\0';
  clear_last_error();
}

// Kernels cannot fail in a simulation: nothing is ever pending or in error.
SEER_CUDNN_API cudnnStatus_t cudnnQueryRuntimeError(cudnnHandle_t handle, cudnnStatus_t* rstatus,
                                                    cudnnErrQueryMode_t /*mode*/,
                                                    cudnnRuntimeTag_t* /*tag*/) {
  if (!live(handle) || !rstatus) return CUDNN_STATUS_BAD_PARAM;
  *rstatus = CUDNN_STATUS_SUCCESS;
  return CUDNN_STATUS_SUCCESS;
}

// Seer's cuDNN logs nothing; the callback is kept so that cudnnGetCallback returns it.
SEER_CUDNN_API cudnnStatus_t cudnnSetCallback(unsigned mask, void* udata, cudnnCallback_t fptr) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_callback = Callback{mask, udata, fptr};
  return CUDNN_STATUS_SUCCESS;
}

SEER_CUDNN_API cudnnStatus_t cudnnGetCallback(unsigned* mask, void** udata, cudnnCallback_t* fptr) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (mask) *mask = g_callback.mask;
  if (udata) *udata = g_callback.data;
  if (fptr) *fptr = g_callback.fn;
  return CUDNN_STATUS_SUCCESS;
}
