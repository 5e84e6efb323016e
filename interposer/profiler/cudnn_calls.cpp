// cuDNN's backend (graph) API as library calls: seer profile preloads the recorder, so these
// definitions come before cuDNN's own. The descriptor calls are passed on and mirrored onto
// shadows (cudnn_shadow.h); cudnnBackendExecute names the plan's ops as Seer's cuDNN names them
// (label and parameters, interposer/cudnn/op_key.h), marks the kernels cuDNN launches for it with
// a CUPTI external correlation id (recorder.h) and calls cuDNN. The session looks cuDNN ops up in
// the database by that name, not by the kernels cuDNN happens to choose.
//
// cuDNN is found at the first call (real_cudnn.h). Without cuDNN no program calls these. The
// legacy API's compute calls are wrapped in cudnn_legacy_calls.cpp.

#include <cudnn.h>

#include <cstdint>
#include <vector>

#include "cudnn_shadow.h"
#include "op_key.h"
#include "real_cudnn.h"
#include "recorder.h"

#define SEER_PROFILER_API extern "C" __attribute__((visibility("default")))

namespace {

namespace shadow = seer::profiler::cudnn_shadow;

template <typename Fn>
Fn next(const char* name) {
  return seer::profiler::real_cudnn<Fn>(name);
}

// Marks one execution of a plan whose ops Seer's cuDNN names.
class Call {
 public:
  explicit Call(void* plan) {
    std::vector<seer::profiler::LibraryOpName> names;
    for (const seer::cudnn::LibraryOp& op : shadow::plan_ops(plan)) {
      names.push_back({seer::cudnn::op_label(op), seer::cudnn::op_params(op)});
    }
    id_ = seer::profiler::begin_library_call(names);
  }
  ~Call() { seer::profiler::end_library_call(id_); }
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;

 private:
  uint64_t id_ = 0;
};

}  // namespace

SEER_PROFILER_API cudnnStatus_t cudnnBackendCreateDescriptor(cudnnBackendDescriptorType_t type,
                                                             cudnnBackendDescriptor_t* d) {
  static auto real = next<decltype(&cudnnBackendCreateDescriptor)>("cudnnBackendCreateDescriptor");
  if (!real) return CUDNN_STATUS_NOT_INITIALIZED;
  const cudnnStatus_t s = real(type, d);
  if (s == CUDNN_STATUS_SUCCESS && d) shadow::created(*d, type);
  return s;
}

SEER_PROFILER_API cudnnStatus_t cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t d) {
  static auto real =
      next<decltype(&cudnnBackendDestroyDescriptor)>("cudnnBackendDestroyDescriptor");
  if (!real) return CUDNN_STATUS_NOT_INITIALIZED;
  const cudnnStatus_t s = real(d);
  if (s == CUDNN_STATUS_SUCCESS) shadow::destroyed(d);
  return s;
}

SEER_PROFILER_API cudnnStatus_t cudnnBackendInitialize(cudnnBackendDescriptor_t d) {
  static auto real = next<decltype(&cudnnBackendInitialize)>("cudnnBackendInitialize");
  if (!real) return CUDNN_STATUS_NOT_INITIALIZED;
  const cudnnStatus_t s = real(d);
  if (s == CUDNN_STATUS_SUCCESS) shadow::initialized(d);
  return s;
}

SEER_PROFILER_API cudnnStatus_t cudnnBackendSetAttribute(cudnnBackendDescriptor_t d,
                                                         cudnnBackendAttributeName_t name,
                                                         cudnnBackendAttributeType_t type,
                                                         int64_t count, const void* elements) {
  static auto real = next<decltype(&cudnnBackendSetAttribute)>("cudnnBackendSetAttribute");
  if (!real) return CUDNN_STATUS_NOT_INITIALIZED;
  const cudnnStatus_t s = real(d, name, type, count, elements);
  if (s == CUDNN_STATUS_SUCCESS) shadow::set(d, name, type, count, elements);
  return s;
}

SEER_PROFILER_API cudnnStatus_t cudnnBackendGetAttribute(cudnnBackendDescriptor_t const d,
                                                         cudnnBackendAttributeName_t name,
                                                         cudnnBackendAttributeType_t type,
                                                         int64_t requested, int64_t* count,
                                                         void* elements) {
  static auto real = next<decltype(&cudnnBackendGetAttribute)>("cudnnBackendGetAttribute");
  if (!real) return CUDNN_STATUS_NOT_INITIALIZED;
  const cudnnStatus_t s = real(d, name, type, requested, count, elements);
  if (s == CUDNN_STATUS_SUCCESS && elements && requested > 0) {
    const int64_t filled = count ? (*count < requested ? *count : requested) : requested;
    shadow::got(d, name, type, filled, static_cast<void* const*>(elements));
  }
  return s;
}

SEER_PROFILER_API cudnnStatus_t cudnnBackendFinalize(cudnnBackendDescriptor_t d) {
  static auto real = next<decltype(&cudnnBackendFinalize)>("cudnnBackendFinalize");
  if (!real) return CUDNN_STATUS_NOT_INITIALIZED;
  const cudnnStatus_t s = real(d);
  if (s == CUDNN_STATUS_SUCCESS) shadow::finalized(d);
  return s;
}

SEER_PROFILER_API cudnnStatus_t cudnnBackendExecute(cudnnHandle_t handle,
                                                    cudnnBackendDescriptor_t plan,
                                                    cudnnBackendDescriptor_t pack) {
  static auto real = next<decltype(&cudnnBackendExecute)>("cudnnBackendExecute");
  if (!real) return CUDNN_STATUS_NOT_INITIALIZED;
  Call call(plan);
  return real(handle, plan, pack);
}
