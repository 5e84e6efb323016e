// CUPTI's callback API: one subscriber (like CUPTI without cuptiSubscribe_v2's sharing) whose
// callback the CUDA front-ends' entry points call at API enter and exit (client/activity.h,
// ApiScope), with the correlation id the activity records of the call carry. Domains: runtime
// and driver API; the others are accepted and never called. Driver launches give their
// parameters (functionParams) in CUPTI's layouts, checked here against generated_cuda_meta.h.

#include <cupti.h>  // and generated_cuda_meta.h

#include <array>
#include <cstddef>
#include <mutex>
#include <unordered_set>
#include <utility>

#include "activity.h"
#include "cbid_table.h"

namespace activity = seer::client::activity;

// The driver front-end fills activity::Launch*Params (it cannot include generated_cuda_meta.h,
// which needs the deprecated types cuda.h hides from the library that defines the API).
#define SEER_SAME_FIELD(ours, theirs, a, b) \
  static_assert(offsetof(ours, a) == offsetof(theirs, b) && sizeof(ours::a) == sizeof(theirs::b))
SEER_SAME_FIELD(activity::LaunchKernelParams, cuLaunchKernel_params, f, f);
SEER_SAME_FIELD(activity::LaunchKernelParams, cuLaunchKernel_params, grid_x, gridDimX);
SEER_SAME_FIELD(activity::LaunchKernelParams, cuLaunchKernel_params, block_z, blockDimZ);
SEER_SAME_FIELD(activity::LaunchKernelParams, cuLaunchKernel_params, shared_mem, sharedMemBytes);
SEER_SAME_FIELD(activity::LaunchKernelParams, cuLaunchKernel_params, stream, hStream);
SEER_SAME_FIELD(activity::LaunchKernelParams, cuLaunchKernel_params, kernel_params, kernelParams);
SEER_SAME_FIELD(activity::LaunchKernelParams, cuLaunchKernel_params, extra, extra);
SEER_SAME_FIELD(activity::LaunchKernelParams, cuLaunchKernel_ptsz_params, extra, extra);
SEER_SAME_FIELD(activity::LaunchKernelParams, cuLaunchCooperativeKernel_params, kernel_params,
                kernelParams);
SEER_SAME_FIELD(activity::LaunchKernelParams, cuLaunchCooperativeKernel_ptsz_params, kernel_params,
                kernelParams);
SEER_SAME_FIELD(activity::LaunchKernelExParams, cuLaunchKernelEx_params, config, config);
SEER_SAME_FIELD(activity::LaunchKernelExParams, cuLaunchKernelEx_params, f, f);
SEER_SAME_FIELD(activity::LaunchKernelExParams, cuLaunchKernelEx_params, kernel_params,
                kernelParams);
SEER_SAME_FIELD(activity::LaunchKernelExParams, cuLaunchKernelEx_params, extra, extra);
SEER_SAME_FIELD(activity::LaunchKernelExParams, cuLaunchKernelEx_ptsz_params, extra, extra);
static_assert(sizeof(activity::LaunchKernelParams) == sizeof(cuLaunchKernel_params));
static_assert(sizeof(activity::LaunchKernelExParams) == sizeof(cuLaunchKernelEx_params));
#undef SEER_SAME_FIELD

namespace {

struct Subscriber {
  CUpti_CallbackFunc fn = nullptr;
  void* userdata = nullptr;
  std::array<bool, CUPTI_CB_DOMAIN_SIZE> all{};  // cuptiEnableDomain
  std::array<std::unordered_set<uint32_t>, CUPTI_CB_DOMAIN_SIZE> enabled;
};

// The handle cuptiSubscribe returns; `live` says whether someone holds it.
Subscriber g_subscriber;
bool g_live = false;
std::mutex g_mu;

bool valid_domain(CUpti_CallbackDomain d) {
  return d > CUPTI_CB_DOMAIN_INVALID && d < CUPTI_CB_DOMAIN_SIZE;
}

CUpti_SubscriberHandle handle() { return reinterpret_cast<CUpti_SubscriberHandle>(&g_subscriber); }

bool is_live_locked(CUpti_SubscriberHandle s) { return g_live && s == handle(); }

bool enabled_locked(CUpti_CallbackDomain d, uint32_t cbid) {
  return g_live && valid_domain(d) && (g_subscriber.all[d] || g_subscriber.enabled[d].count(cbid));
}

// The client core calls back only while an API callback is enabled.
void update_locked() {
  bool any = false;
  for (CUpti_CallbackDomain d : {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_CB_DOMAIN_DRIVER_API}) {
    any = any || g_subscriber.all[d] || !g_subscriber.enabled[d].empty();
  }
  activity::set_callbacks_enabled(g_live && any);
}

CUpti_CallbackDomain domain_of(activity::Domain d) {
  return d == activity::Domain::kDriver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
}

int64_t resolve(activity::Domain domain, const char* name) {
  const CUpti_CallbackDomain d = domain_of(domain);
  const int64_t cbid = seer::cupti::callback_id(d, name);
  if (cbid < 0) return -1;
  std::lock_guard<std::mutex> lock(g_mu);
  return enabled_locked(d, static_cast<uint32_t>(cbid)) ? cbid : -1;
}

// Called on the application's thread, outside any lock: the subscriber may unsubscribe (Kineto's
// teardown does, from an exit callback).
void deliver(const activity::ApiEvent& e) {
  const CUpti_CallbackDomain d = domain_of(e.domain);
  CUpti_CallbackFunc fn = nullptr;
  void* userdata = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    if (!enabled_locked(d, e.cbid)) return;
    fn = g_subscriber.fn;
    userdata = g_subscriber.userdata;
  }
  if (!fn) return;
  CUpti_CallbackData data{};
  data.callbackSite = e.exit ? CUPTI_API_EXIT : CUPTI_API_ENTER;
  data.functionName = e.name;
  data.functionParams = e.params;
  data.functionReturnValue = const_cast<void*>(e.result);
  data.symbolName = e.symbol;
  data.context = nullptr;  // Seer's contexts are the primary ones: contextUid names them
  data.contextUid = static_cast<uint32_t>(e.device) + 1;
  data.correlationData = e.correlation_data;
  data.correlationId = e.correlation;
  fn(userdata, d, e.cbid, &data);
}

// Installs the hooks when the library loads (the client core is loaded before it).
[[maybe_unused]] const bool g_hooks_installed = [] {
  activity::set_callback_hooks(activity::CallbackHooks{&resolve, &deliver});
  return true;
}();

}  // namespace

extern "C" {

CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc fn,
                                    void* userdata) {
  if (!subscriber) return CUPTI_ERROR_INVALID_PARAMETER;
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_live) return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  g_subscriber = Subscriber{};
  g_subscriber.fn = fn;
  g_subscriber.userdata = userdata;
  g_live = true;
  *subscriber = handle();
  update_locked();
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiUnsubscribe(CUpti_SubscriberHandle subscriber) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (!is_live_locked(subscriber)) return CUPTI_ERROR_INVALID_PARAMETER;
  g_live = false;
  update_locked();
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle subscriber,
                                         CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (!is_live_locked(subscriber) || !valid_domain(domain)) return CUPTI_ERROR_INVALID_PARAMETER;
  if (enable) {
    g_subscriber.enabled[domain].insert(cbid);
  } else {
    g_subscriber.enabled[domain].erase(cbid);
  }
  update_locked();
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiEnableDomain(uint32_t enable, CUpti_SubscriberHandle subscriber,
                                       CUpti_CallbackDomain domain) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (!is_live_locked(subscriber) || !valid_domain(domain)) return CUPTI_ERROR_INVALID_PARAMETER;
  g_subscriber.all[domain] = enable != 0;
  if (!enable) g_subscriber.enabled[domain].clear();
  update_locked();
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiEnableAllDomains(uint32_t enable, CUpti_SubscriberHandle subscriber) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (!is_live_locked(subscriber)) return CUPTI_ERROR_INVALID_PARAMETER;
  for (int d = CUPTI_CB_DOMAIN_INVALID + 1; d < CUPTI_CB_DOMAIN_SIZE; ++d) {
    g_subscriber.all[d] = enable != 0;
    if (!enable) g_subscriber.enabled[d].clear();
  }
  update_locked();
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetCallbackState(uint32_t* enable, CUpti_SubscriberHandle subscriber,
                                           CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  if (!enable) return CUPTI_ERROR_INVALID_PARAMETER;
  std::lock_guard<std::mutex> lock(g_mu);
  if (!is_live_locked(subscriber) || !valid_domain(domain)) return CUPTI_ERROR_INVALID_PARAMETER;
  *enable = enabled_locked(domain, cbid) ? 1 : 0;
  return CUPTI_SUCCESS;
}

// Detaches the subscriber (Kineto re-subscribes lazily on its next trace).
CUptiResult CUPTIAPI cuptiFinalize(void) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_live = false;
  update_locked();
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid,
                                          const char** name) {
  if (!name) return CUPTI_ERROR_INVALID_PARAMETER;
  const char* n = seer::cupti::callback_name(domain, cbid);
  if (!n) return CUPTI_ERROR_INVALID_PARAMETER;
  *name = n;
  return CUPTI_SUCCESS;
}

}  // extern "C"
