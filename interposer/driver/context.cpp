// Contexts. Each device has one primary context object; the thread's current context is its
// runtime device's primary context (cuCtxSetCurrent is cudaSetDevice), so the runtime and the
// driver always agree. Created contexts are extra objects on a device, sharing its streams.

#include <mutex>
#include <unordered_set>
#include <vector>

#include "activity.h"
#include "api.h"
#include "graph.h"

using namespace seer::driver;

namespace {

std::mutex g_mu;
std::vector<CtxObj*> g_primary;
std::unordered_set<const void*> g_created;
unsigned long long g_next_id = 1;

// A pushed context stack per thread: the devices to return to.
thread_local std::vector<int> tl_pushed;

size_t g_limits[16] = {1024, 1 << 20, 8 << 20, 2, 2048, 0, 0, 0};

CUcontext handle(CtxObj* c) { return reinterpret_cast<CUcontext>(c); }

void make_current(ThreadState& ts, int device) {
  ts.device = device;
  CudaState::instance().mark_device_active(device);
}

}  // namespace

namespace seer::driver {

CtxObj* primary_context(int device) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_primary.size() <= static_cast<size_t>(device)) g_primary.resize(device + 1, nullptr);
  if (!g_primary[device]) {
    g_primary[device] = new CtxObj();
    g_primary[device]->device = device;
    g_primary[device]->primary = true;
    g_primary[device]->id = g_next_id++;
  }
  return g_primary[device];
}

CtxObj* find_context(CUcontext ctx) {
  if (!ctx) return nullptr;
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_created.count(ctx)) return reinterpret_cast<CtxObj*>(ctx);
  for (CtxObj* p : g_primary) {
    if (p && handle(p) == ctx) return p;
  }
  return nullptr;
}

}  // namespace seer::driver

SEER_CU_API CUresult cuDevicePrimaryCtxRetain(CUcontext* ctx, CUdevice device) {
  SEER_CU_ENTER(other_call);
  if (!ctx) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(device)) return CUDA_ERROR_INVALID_DEVICE;
  CudaState::instance().mark_device_active(device);
  *ctx = handle(primary_context(device));
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice device) {
  SEER_CU_ENTER(other_call);
  return valid_device(device) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

SEER_CU_API CUresult cuDevicePrimaryCtxRelease(CUdevice device) {
  return cuDevicePrimaryCtxRelease_v2(device);
}

SEER_CU_API CUresult cuDevicePrimaryCtxReset_v2(CUdevice device) {
  SEER_CU_ENTER(other_call);
  if (!valid_device(device)) return CUDA_ERROR_INVALID_DEVICE;
  ops::sync_device(call.ts(), device);
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuDevicePrimaryCtxReset(CUdevice device) {
  return cuDevicePrimaryCtxReset_v2(device);
}

// Answered locally: PyTorch's device guards ask this many times per step.
SEER_CU_API CUresult cuDevicePrimaryCtxGetState(CUdevice device, unsigned* flags, int* active) {
  CUresult err = CUDA_SUCCESS;
  if (!ready(err)) return err;
  if (!flags || !active) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(device)) return CUDA_ERROR_INVALID_DEVICE;
  *flags = primary_context(device)->flags;
  *active = CudaState::instance().device_active(device) ? 1 : 0;
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice device, unsigned flags) {
  SEER_CU_ENTER(other_call);
  if (!valid_device(device)) return CUDA_ERROR_INVALID_DEVICE;
  primary_context(device)->flags = flags;
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuDevicePrimaryCtxSetFlags(CUdevice device, unsigned flags) {
  return cuDevicePrimaryCtxSetFlags_v2(device, flags);
}

SEER_CU_API CUresult cuCtxGetCurrent(CUcontext* ctx) {
  SEER_CU_ENTER(other_call);
  if (!ctx) return CUDA_ERROR_INVALID_VALUE;
  *ctx = handle(primary_context(call.ts().device));
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuCtxSetCurrent(CUcontext ctx) {
  SEER_CU_ENTER(other_call);
  if (!ctx) return CUDA_SUCCESS;  // unbinding: the runtime's device stays the thread's
  CtxObj* c = find_context(ctx);
  if (!c) return CUDA_ERROR_INVALID_CONTEXT;
  make_current(call.ts(), c->device);
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuCtxPushCurrent_v2(CUcontext ctx) {
  SEER_CU_ENTER(other_call);
  CtxObj* c = find_context(ctx);
  if (!c) return CUDA_ERROR_INVALID_CONTEXT;
  tl_pushed.push_back(call.ts().device);
  make_current(call.ts(), c->device);
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuCtxPopCurrent_v2(CUcontext* ctx) {
  SEER_CU_ENTER(other_call);
  if (tl_pushed.empty()) return CUDA_ERROR_INVALID_CONTEXT;
  if (ctx) *ctx = handle(primary_context(call.ts().device));
  call.ts().device = tl_pushed.back();
  tl_pushed.pop_back();
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuCtxPushCurrent(CUcontext ctx) { return cuCtxPushCurrent_v2(ctx); }
SEER_CU_API CUresult cuCtxPopCurrent(CUcontext* ctx) { return cuCtxPopCurrent_v2(ctx); }

SEER_CU_API CUresult cuCtxGetDevice(CUdevice* device) {
  SEER_CU_ENTER(other_call);
  if (!device) return CUDA_ERROR_INVALID_VALUE;
  *device = call.ts().device;
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuCtxGetDevice_v2(CUdevice* device, CUcontext ctx) {
  SEER_CU_ENTER(other_call);
  if (!device) return CUDA_ERROR_INVALID_VALUE;
  if (!ctx) {
    *device = call.ts().device;
    return CUDA_SUCCESS;
  }
  CtxObj* c = find_context(ctx);
  if (!c) return CUDA_ERROR_INVALID_CONTEXT;
  *device = c->device;
  return CUDA_SUCCESS;
}

static CUresult create_context(CUcontext* ctx, unsigned flags, CUdevice device) {
  SEER_CU_ENTER(other_call);
  if (!ctx) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(device)) return CUDA_ERROR_INVALID_DEVICE;
  auto* c = new CtxObj();
  c->device = device;
  c->flags = flags;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    c->id = g_next_id++;
    g_created.insert(c);
  }
  tl_pushed.push_back(call.ts().device);
  make_current(call.ts(), device);
  *ctx = handle(c);
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuCtxCreate_v2(CUcontext* ctx, unsigned flags, CUdevice device) {
  return create_context(ctx, flags, device);
}

SEER_CU_API CUresult cuCtxCreate_v3(CUcontext* ctx, CUexecAffinityParam* /*params*/,
                                    int /*num_params*/, unsigned flags, CUdevice device) {
  return create_context(ctx, flags, device);
}

SEER_CU_API CUresult cuCtxCreate_v4(CUcontext* ctx, CUctxCreateParams* /*params*/, unsigned flags,
                                    CUdevice device) {
  return create_context(ctx, flags, device);
}

SEER_CU_API CUresult cuCtxDestroy_v2(CUcontext ctx) {
  SEER_CU_ENTER(other_call);
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_created.erase(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
  delete reinterpret_cast<CtxObj*>(ctx);
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuCtxDestroy(CUcontext ctx) { return cuCtxDestroy_v2(ctx); }

SEER_CU_API CUresult cuCtxSynchronize(void) {
  SEER_CU_ENTER(other_call);
  if (cudaError_t e = seer::client::graph::check_unsafe_call(); e != cudaSuccess) return to_cu(e);
  seer::client::activity::SyncNote note(call.ts(), seer::client::activity::SyncKind::kContext,
                                        call.ts().device);
  ops::sync_device(call.ts(), call.ts().device);
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuCtxSynchronize_v2(CUcontext ctx) {
  SEER_CU_ENTER(other_call);
  if (cudaError_t e = seer::client::graph::check_unsafe_call(); e != cudaSuccess) return to_cu(e);
  CtxObj* c = ctx ? find_context(ctx) : primary_context(call.ts().device);
  if (!c) return CUDA_ERROR_INVALID_CONTEXT;
  seer::client::activity::SyncNote note(call.ts(), seer::client::activity::SyncKind::kContext,
                                        c->device);
  ops::sync_device(call.ts(), c->device);
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuCtxSetLimit(CUlimit limit, size_t value) {
  SEER_CU_ENTER(other_call);
  if (static_cast<unsigned>(limit) >= 16) return CUDA_ERROR_UNSUPPORTED_LIMIT;
  g_limits[limit] = value;
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuCtxGetLimit(size_t* value, CUlimit limit) {
  SEER_CU_ENTER(other_call);
  if (!value) return CUDA_ERROR_INVALID_VALUE;
  if (static_cast<unsigned>(limit) >= 16) return CUDA_ERROR_UNSUPPORTED_LIMIT;
  *value = g_limits[limit];
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned* version) {
  SEER_CU_ENTER(other_call);
  if (!version) return CUDA_ERROR_INVALID_VALUE;
  if (ctx && !find_context(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
  *version = 3020;  // the context ABI version every current driver reports
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuCtxGetFlags(unsigned* flags) {
  SEER_CU_ENTER(other_call);
  if (!flags) return CUDA_ERROR_INVALID_VALUE;
  *flags = primary_context(call.ts().device)->flags;
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuCtxSetFlags(unsigned flags) {
  SEER_CU_ENTER(other_call);
  primary_context(call.ts().device)->flags = flags;
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuCtxGetId(CUcontext ctx, unsigned long long* id) {
  SEER_CU_ENTER(other_call);
  if (!id) return CUDA_ERROR_INVALID_VALUE;
  CtxObj* c = ctx ? find_context(ctx) : primary_context(call.ts().device);
  if (!c) return CUDA_ERROR_INVALID_CONTEXT;
  *id = c->id;
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuCtxGetStreamPriorityRange(int* least, int* greatest) {
  SEER_CU_ENTER(other_call);
  if (least) *least = 0;
  if (greatest) *greatest = -5;
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuCtxGetCacheConfig(CUfunc_cache* config) {
  SEER_CU_ENTER(other_call);
  if (!config) return CUDA_ERROR_INVALID_VALUE;
  *config = CU_FUNC_CACHE_PREFER_NONE;
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuCtxSetCacheConfig(CUfunc_cache /*config*/) {
  SEER_CU_ENTER(other_call);
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuCtxEnablePeerAccess(CUcontext peer, unsigned flags) {
  SEER_CU_ENTER(other_call);
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  return find_context(peer) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

SEER_CU_API CUresult cuCtxDisablePeerAccess(CUcontext peer) {
  SEER_CU_ENTER(other_call);
  return find_context(peer) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}
