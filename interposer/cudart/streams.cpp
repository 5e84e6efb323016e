// Streams: creation with flags and priority, synchronization, queries, waits on events, capture
// state (client/graph.h) and host functions. The operations live in client/ops_stream.cpp.

#include "api.h"
#include "graph.h"

using namespace seer::cudart;
using seer::client::StreamObj;
namespace ops = seer::client::ops;
namespace graph = seer::client::graph;

namespace {

cudaError_t create(cudaStream_t* out, unsigned flags, int priority) {
  SEER_ENTER(other_call);
  return fail(call.ts(),
              ops::stream_create(call.ts(), reinterpret_cast<void**>(out), flags, priority));
}

cudaError_t synchronize(cudaStream_t stream, bool per_thread) {
  SEER_ENTER(other_call);
  return fail(call.ts(), ops::stream_synchronize(call.ts(), stream, per_thread));
}

cudaError_t query(cudaStream_t stream, bool per_thread) {
  SEER_ENTER(query);
  return fail(call.ts(), ops::stream_query(call.ts(), stream, per_thread));
}

cudaError_t wait_event(cudaStream_t stream, cudaEvent_t event, unsigned flags, bool per_thread) {
  SEER_ENTER(stream_wait);
  return fail(call.ts(), ops::stream_wait_event(call.ts(), stream, event, flags, per_thread));
}

// Host functions run when the stream reaches them: the calling thread waits (in virtual time)
// for the stream's earlier work, then calls the function itself, before returning.
cudaError_t host_func(cudaStream_t stream, bool per_thread, void (*fn)(void*), void* data,
                      cudaStreamCallback_t callback) {
  {
    SEER_ENTER(other_call);
    if (!fn && !callback) return fail(call.ts(), cudaErrorInvalidValue);
    StreamObj* s = CudaState::instance().resolve_stream(call.ts(), stream, per_thread);
    cudaError_t err = cudaSuccess;
    if (s && fn && graph::capture_host(call.ts(), s, fn, data, err)) return fail(call.ts(), err);
    err = ops::stream_synchronize(call.ts(), stream, per_thread);
    if (err != cudaSuccess) return fail(call.ts(), err);
  }
  if (fn) {
    fn(data);
  } else {
    callback(stream, cudaSuccess, data);
  }
  return cudaSuccess;
}

StreamObj* resolve(ThreadState& ts, cudaStream_t stream, bool per_thread) {
  return CudaState::instance().resolve_stream(ts, stream, per_thread);
}

}  // namespace

SEER_CUDA_API cudaError_t cudaStreamCreate(cudaStream_t* s) {
  SEER_API_SCOPE(nullptr)
  return create(s, 0, 0);
}

SEER_CUDA_API cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned flags) {
  SEER_API_SCOPE(nullptr)
  return create(s, flags, 0);
}

SEER_CUDA_API cudaError_t cudaStreamCreateWithPriority(cudaStream_t* s, unsigned flags,
                                                       int priority) {
  SEER_API_SCOPE(nullptr)
  return create(s, flags, priority);
}

SEER_CUDA_API cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  SEER_ENTER(other_call);
  return fail(call.ts(), ops::stream_destroy(stream));
}

SEER_CUDA_API cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  SEER_API_SCOPE(nullptr)
  return synchronize(s, false);
}
SEER_CUDA_API cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t s) {
  SEER_API_SCOPE(nullptr)
  return synchronize(s, true);
}
SEER_CUDA_API cudaError_t cudaStreamQuery(cudaStream_t s) {
  SEER_API_SCOPE(nullptr)
  return query(s, false);
}
SEER_CUDA_API cudaError_t cudaStreamQuery_ptsz(cudaStream_t s) {
  SEER_API_SCOPE(nullptr)
  return query(s, true);
}

SEER_CUDA_API cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags) {
  SEER_API_SCOPE(nullptr)
  return wait_event(s, e, flags, false);
}

SEER_CUDA_API cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t s, cudaEvent_t e, unsigned flags) {
  SEER_API_SCOPE(nullptr)
  return wait_event(s, e, flags, true);
}

SEER_CUDA_API cudaError_t cudaStreamGetPriority(cudaStream_t stream, int* priority) {
  SEER_ENTER(other_call);
  StreamObj* s = resolve(call.ts(), stream, false);
  if (!s) return fail(call.ts(), cudaErrorInvalidResourceHandle);
  if (!priority) return fail(call.ts(), cudaErrorInvalidValue);
  *priority = s->priority;
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned* flags) {
  SEER_ENTER(other_call);
  StreamObj* s = resolve(call.ts(), stream, false);
  if (!s) return fail(call.ts(), cudaErrorInvalidResourceHandle);
  if (!flags) return fail(call.ts(), cudaErrorInvalidValue);
  *flags = s->flags;
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaStreamGetDevice(cudaStream_t stream, int* device) {
  SEER_ENTER(other_call);
  StreamObj* s = resolve(call.ts(), stream, false);
  if (!s) return fail(call.ts(), cudaErrorInvalidResourceHandle);
  if (!device) return fail(call.ts(), cudaErrorInvalidValue);
  *device = s->device;
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaStreamGetId(cudaStream_t stream, unsigned long long* id) {
  SEER_ENTER(other_call);
  StreamObj* s = resolve(call.ts(), stream, false);
  if (!s) return fail(call.ts(), cudaErrorInvalidResourceHandle);
  if (!id) return fail(call.ts(), cudaErrorInvalidValue);
  *id = s->id;
  return cudaSuccess;
}

static cudaError_t capture_info(cudaStream_t stream, cudaStreamCaptureStatus* status,
                                unsigned long long* id, cudaGraph_t* graph,
                                const cudaGraphNode_t** deps, const cudaGraphEdgeData** edges,
                                size_t* num_deps, bool per_thread) {
  SEER_ENTER(other_call);
  if (!status) return fail(call.ts(), cudaErrorInvalidValue);
  StreamObj* s = resolve(call.ts(), stream, per_thread);
  if (!s) return fail(call.ts(), cudaErrorInvalidResourceHandle);
  const graph::CaptureInfo info = graph::capture_info(s);
  *status = info.status;
  if (id) *id = info.id;
  if (graph) *graph = reinterpret_cast<cudaGraph_t>(info.graph);
  if (deps) *deps = reinterpret_cast<const cudaGraphNode_t*>(info.deps);
  if (edges) *edges = nullptr;  // captured edges carry no data
  if (num_deps) *num_deps = info.count;
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaStreamIsCapturing(cudaStream_t stream,
                                                cudaStreamCaptureStatus* status) {
  return capture_info(stream, status, nullptr, nullptr, nullptr, nullptr, nullptr, false);
}

SEER_CUDA_API cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream,
                                                     cudaStreamCaptureStatus* status) {
  return capture_info(stream, status, nullptr, nullptr, nullptr, nullptr, nullptr, true);
}

// CUDA 13 signature (with edgeData_out).
SEER_CUDA_API cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream,
                                                   cudaStreamCaptureStatus* status,
                                                   unsigned long long* id, cudaGraph_t* graph,
                                                   const cudaGraphNode_t** deps,
                                                   const cudaGraphEdgeData** edges,
                                                   size_t* num_deps) {
  return capture_info(stream, status, id, graph, deps, edges, num_deps, false);
}

SEER_CUDA_API cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t stream,
                                                        cudaStreamCaptureStatus* status,
                                                        unsigned long long* id, cudaGraph_t* graph,
                                                        const cudaGraphNode_t** deps,
                                                        const cudaGraphEdgeData** edges,
                                                        size_t* num_deps) {
  return capture_info(stream, status, id, graph, deps, edges, num_deps, true);
}

SEER_CUDA_API cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode* mode) {
  SEER_ENTER(other_call);
  if (!mode) return fail(call.ts(), cudaErrorInvalidValue);
  if (*mode != cudaStreamCaptureModeGlobal && *mode != cudaStreamCaptureModeThreadLocal &&
      *mode != cudaStreamCaptureModeRelaxed) {
    return fail(call.ts(), cudaErrorInvalidValue);
  }
  *mode = static_cast<cudaStreamCaptureMode>(graph::exchange_mode(*mode));
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* data) {
  return host_func(stream, false, fn, data, nullptr);
}

SEER_CUDA_API cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn,
                                                  void* data) {
  return host_func(stream, true, fn, data, nullptr);
}

SEER_CUDA_API cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                                void* data, unsigned flags) {
  if (flags != 0) return cudaErrorInvalidValue;
  return host_func(stream, false, nullptr, data, callback);
}

SEER_CUDA_API cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream,
                                                     cudaStreamCallback_t callback, void* data,
                                                     unsigned flags) {
  if (flags != 0) return cudaErrorInvalidValue;
  return host_func(stream, true, nullptr, data, callback);
}
