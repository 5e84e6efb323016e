// CUPTI's general API: version, result strings, virtual timestamps, context/device/stream ids
// (the callback API is callback_api.cpp).

#include <cupti.h>

#include <ctime>

#include "core.h"
#include "cuda_state.h"

namespace client = seer::client;

extern "C" {

CUptiResult CUPTIAPI cuptiGetVersion(uint32_t* version) {
  if (!version) return CUPTI_ERROR_INVALID_PARAMETER;
  *version = CUPTI_API_VERSION;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult result, const char** str) {
  if (!str) return CUPTI_ERROR_INVALID_PARAMETER;
  switch (result) {
    case CUPTI_SUCCESS:
      *str = "CUPTI_SUCCESS";
      break;
    case CUPTI_ERROR_INVALID_PARAMETER:
      *str = "CUPTI_ERROR_INVALID_PARAMETER";
      break;
    case CUPTI_ERROR_NOT_SUPPORTED:
      *str = "CUPTI_ERROR_NOT_SUPPORTED (not simulated by Seer)";
      break;
    case CUPTI_ERROR_MAX_LIMIT_REACHED:
      *str = "CUPTI_ERROR_MAX_LIMIT_REACHED";
      break;
    case CUPTI_ERROR_QUEUE_EMPTY:
      *str = "CUPTI_ERROR_QUEUE_EMPTY";
      break;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
      *str = "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED";
      break;
    default:
      *str = "CUPTI_ERROR_UNKNOWN";
  }
  return CUPTI_SUCCESS;
}

// Virtual ns, in the timebase of the process' virtual CLOCK_REALTIME.
CUptiResult CUPTIAPI cuptiGetTimestamp(uint64_t* timestamp) {
  if (!timestamp) return CUPTI_ERROR_INVALID_PARAMETER;
  *timestamp = static_cast<uint64_t>(client::Core::instance().clock_peek_ns(CLOCK_REALTIME));
  return CUPTI_SUCCESS;
}

// Seer's contexts are the primary contexts: id = device + 1, like the activity records.
CUptiResult CUPTIAPI cuptiGetContextId(CUcontext, uint32_t* context_id) {
  if (!context_id) return CUPTI_ERROR_INVALID_PARAMETER;
  *context_id = static_cast<uint32_t>(client::Core::instance().thread().device) + 1;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetDeviceId(CUcontext, uint32_t* device_id) {
  if (!device_id) return CUPTI_ERROR_INVALID_PARAMETER;
  *device_id = static_cast<uint32_t>(client::Core::instance().thread().device);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetStreamIdEx(CUcontext, CUstream stream, uint8_t per_thread,
                                        uint32_t* stream_id) {
  if (!stream_id) return CUPTI_ERROR_INVALID_PARAMETER;
  client::Core& core = client::Core::instance();
  if (!core.ensure_joined()) return CUPTI_ERROR_NOT_INITIALIZED;
  client::StreamObj* s =
      client::CudaState::instance().resolve_stream(core.thread(), stream, per_thread != 0);
  if (!s) return CUPTI_ERROR_INVALID_PARAMETER;
  *stream_id = static_cast<uint32_t>(s->id);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetStreamId(CUcontext context, CUstream stream, uint32_t* stream_id) {
  return cuptiGetStreamIdEx(context, stream, 0, stream_id);
}

}  // extern "C"
