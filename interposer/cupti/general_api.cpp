// CUPTI's general and callback API: version, result strings, subscribers (accepted; Seer calls
// no callbacks), virtual timestamps, context/device/stream ids.

#include <cupti.h>

#include <ctime>
#include <mutex>
#include <utility>

#include "core.h"
#include "cuda_state.h"

namespace client = seer::client;

namespace {

int g_subscriber = 0;  // the handle cuptiSubscribe returns (one subscriber, like CUPTI)
bool g_subscribed = false;
std::mutex g_mu;

}  // namespace

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

CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc, void*) {
  if (!subscriber) return CUPTI_ERROR_INVALID_PARAMETER;
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_subscribed) return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  g_subscribed = true;
  *subscriber = reinterpret_cast<CUpti_SubscriberHandle>(&g_subscriber);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiUnsubscribe(CUpti_SubscriberHandle subscriber) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (subscriber != reinterpret_cast<CUpti_SubscriberHandle>(&g_subscriber) || !g_subscribed) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  g_subscribed = false;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t, CUpti_SubscriberHandle subscriber,
                                         CUpti_CallbackDomain, CUpti_CallbackId) {
  return subscriber ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_PARAMETER;
}

CUptiResult CUPTIAPI cuptiEnableDomain(uint32_t, CUpti_SubscriberHandle subscriber,
                                       CUpti_CallbackDomain) {
  return subscriber ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_PARAMETER;
}

CUptiResult CUPTIAPI cuptiFinalize(void) { return CUPTI_SUCCESS; }

CUptiResult CUPTIAPI cuptiGetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid,
                                          const char** name) {
  if (!name) return CUPTI_ERROR_INVALID_PARAMETER;
  *name = "unknown";
  // The calls Seer writes API records for.
  static const std::pair<uint32_t, const char*> kRuntime[] = {
      {CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel"},
      {CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060, "cudaLaunchKernelExC"},
      {CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, "cudaMemcpyAsync"},
      {CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020, "cudaMemsetAsync"},
      {CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, "cudaStreamSynchronize"},
      {CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020, "cudaStreamWaitEvent"},
      {CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020, "cudaEventSynchronize"},
      {CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, "cudaDeviceSynchronize"},
  };
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    for (const auto& [id, n] : kRuntime) {
      if (cbid == id) *name = n;
    }
  }
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx) {
    *name = "cuLaunchKernelEx";
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
