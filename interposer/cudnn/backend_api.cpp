// The backend (graph) API as cudnn-frontend drives it: descriptors live in descriptor.cpp;
// cudnnBackendExecute enqueues the ops the execution plan was finalized with (graph_model.cpp).

#include <cudnn.h>

#include <cstdio>
#include <cstdlib>

#include "descriptor.h"
#include "handle.h"
#include "submit.h"
#include "types.h"

using namespace seer::cudnn;
namespace be = seer::cudnn::backend;

namespace {

// SEER_CUDNN_TRACE=1 prints every backend call and its status on stderr (to see what a
// framework asks of cuDNN).
bool tracing() {
  static const bool on = [] {
    const char* v = std::getenv("SEER_CUDNN_TRACE");
    return v && *v && *v != '0';
  }();
  return on;
}

cudnnStatus_t traced(cudnnStatus_t s, const char* call, const be::Descriptor* d, long long a = -1,
                     long long b = -1, long long c = -1) {
  if (tracing()) {
    std::fprintf(stderr, "seer cudnn: %s(type %d, %lld, %lld, %lld) -> %d\n", call,
                 d ? d->type : -1, a, b, c, static_cast<int>(s));
  }
  return s;
}

}  // namespace

SEER_CUDNN_API cudnnStatus_t cudnnBackendCreateDescriptor(cudnnBackendDescriptorType_t type,
                                                          cudnnBackendDescriptor_t* descriptor) {
  if (!descriptor) return fail(CUDNN_STATUS_BAD_PARAM, "cudnnBackendCreateDescriptor: null");
  be::Descriptor* d = be::create(type);
  traced(d ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_NOT_SUPPORTED, "create", d, type);
  if (!d) {
    return fail(CUDNN_STATUS_NOT_SUPPORTED, "cudnnBackendCreateDescriptor: unknown type");
  }
  *descriptor = d;
  return CUDNN_STATUS_SUCCESS;
}

SEER_CUDNN_API cudnnStatus_t cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t descriptor) {
  return be::destroy(descriptor)
             ? CUDNN_STATUS_SUCCESS
             : fail(CUDNN_STATUS_BAD_PARAM, "cudnnBackendDestroyDescriptor: not a descriptor");
}

SEER_CUDNN_API cudnnStatus_t cudnnBackendInitialize(cudnnBackendDescriptor_t descriptor) {
  be::Descriptor* d = be::live(descriptor);
  if (!d) return fail(CUDNN_STATUS_BAD_PARAM, "cudnnBackendInitialize: not a descriptor");
  const int type = d->type;
  *d = be::Descriptor();
  d->type = type;
  return CUDNN_STATUS_SUCCESS;
}

SEER_CUDNN_API cudnnStatus_t cudnnBackendSetAttribute(cudnnBackendDescriptor_t descriptor,
                                                      cudnnBackendAttributeName_t name,
                                                      cudnnBackendAttributeType_t type,
                                                      int64_t count, const void* elements) {
  be::Descriptor* d = be::live(descriptor);
  if (!d) return fail(CUDNN_STATUS_BAD_PARAM, "cudnnBackendSetAttribute: not a descriptor");
  const cudnnStatus_t s =
      traced(be::set_attribute(*d, name, type, count, elements), "set", d, name, type, count);
  return s == CUDNN_STATUS_SUCCESS ? s : fail(s, "cudnnBackendSetAttribute: rejected");
}

SEER_CUDNN_API cudnnStatus_t cudnnBackendGetAttribute(cudnnBackendDescriptor_t const descriptor,
                                                      cudnnBackendAttributeName_t name,
                                                      cudnnBackendAttributeType_t type,
                                                      int64_t requested, int64_t* count,
                                                      void* elements) {
  const be::Descriptor* d = be::live(descriptor);
  if (!d) return fail(CUDNN_STATUS_BAD_PARAM, "cudnnBackendGetAttribute: not a descriptor");
  const cudnnStatus_t s = traced(be::get_attribute(*d, name, type, requested, count, elements),
                                 "get", d, name, type, requested);
  return s == CUDNN_STATUS_SUCCESS ? s : fail(s, "cudnnBackendGetAttribute: rejected");
}

SEER_CUDNN_API cudnnStatus_t cudnnBackendFinalize(cudnnBackendDescriptor_t descriptor) {
  be::Descriptor* d = be::live(descriptor);
  if (!d) return fail(CUDNN_STATUS_BAD_PARAM, "cudnnBackendFinalize: not a descriptor");
  const cudnnStatus_t s = traced(be::finalize(*d), "finalize", d);
  return s == CUDNN_STATUS_SUCCESS
             ? s
             : fail(s, "cudnnBackendFinalize: missing or inconsistent attributes");
}

namespace {

// The plan and variant pack checks cudnnBackendExecute and the workspace query share.
cudnnStatus_t check_execute(cudnnHandle_t handle, const be::Descriptor* plan,
                            const be::Descriptor* pack) {
  if (!live(handle)) return fail(CUDNN_STATUS_BAD_PARAM, "cudnnBackendExecute: bad handle");
  if (!plan || plan->type != CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR || !pack ||
      pack->type != CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR) {
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnBackendExecute: not a plan and a variant pack");
  }
  if (!plan->finalized || !pack->finalized) {
    return fail(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED, "cudnnBackendExecute: not finalized");
  }
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace

SEER_CUDNN_API cudnnStatus_t cudnnBackendExecute(cudnnHandle_t handle,
                                                 cudnnBackendDescriptor_t executionPlan,
                                                 cudnnBackendDescriptor_t variantPack) {
  const be::Descriptor* plan = be::live(executionPlan);
  const be::Descriptor* pack = be::live(variantPack);
  const cudnnStatus_t s = check_execute(handle, plan, pack);
  if (s != CUDNN_STATUS_SUCCESS) return s;
  if (tracing()) {
    for (const LibraryOp& op : plan->ops) {
      std::fprintf(stderr, "seer cudnn: execute %s m=%lld n=%lld k=%lld batch=%lld bytes=%.0f\n",
                   op.api.c_str(), static_cast<long long>(op.m), static_cast<long long>(op.n),
                   static_cast<long long>(op.k), static_cast<long long>(op.batch), op.bytes);
    }
  }
  return traced(enqueue(live(handle)->stream, plan->ops), "execute", plan,
                static_cast<long long>(plan->ops.size()));
}

SEER_CUDNN_API cudnnStatus_t cudnnGetExecutionPlanWorkspaceSize(
    cudnnHandle_t handle, cudnnBackendDescriptor_t executionPlan,
    cudnnBackendDescriptor_t variantPack, size_t* workspaceSizeInBytes) {
  const be::Descriptor* plan = be::live(executionPlan);
  const be::Descriptor* pack = be::live(variantPack);
  const cudnnStatus_t s = check_execute(handle, plan, pack);
  if (s != CUDNN_STATUS_SUCCESS) return s;
  if (!workspaceSizeInBytes) return fail(CUDNN_STATUS_BAD_PARAM, "workspace size pointer null");
  *workspaceSizeInBytes =
      static_cast<size_t>(plan->int64(CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE).value_or(0));
  return CUDNN_STATUS_SUCCESS;
}
