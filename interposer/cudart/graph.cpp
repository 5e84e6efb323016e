// CUDA graphs: stream capture, instantiation and launch (client/graph.h, client/GRAPHS.md).
// Graph construction by explicit node APIs (cudaGraphAdd*Node) stays unsupported.

#include "graph.h"

#include "api.h"

using namespace seer::cudart;
using seer::client::StreamObj;
namespace graph = seer::client::graph;

namespace {

graph::Graph* G(cudaGraph_t g) { return reinterpret_cast<graph::Graph*>(g); }
graph::Exec* X(cudaGraphExec_t x) { return reinterpret_cast<graph::Exec*>(x); }
graph::Node* N(cudaGraphNode_t n) { return reinterpret_cast<graph::Node*>(n); }
graph::UserObject* U(cudaUserObject_t o) { return reinterpret_cast<graph::UserObject*>(o); }

StreamObj* resolve(ThreadState& ts, cudaStream_t stream, bool per_thread) {
  return CudaState::instance().resolve_stream(ts, stream, per_thread);
}

cudaError_t begin(cudaStream_t stream, bool per_thread, cudaStreamCaptureMode mode,
                  cudaGraph_t into, const cudaGraphNode_t* deps, size_t n) {
  SEER_ENTER(other_call);
  StreamObj* s = resolve(call.ts(), stream, per_thread);
  if (!s) return fail(call.ts(), cudaErrorInvalidResourceHandle);
  return fail(call.ts(), graph::begin_capture(s, mode, G(into),
                                              reinterpret_cast<graph::Node* const*>(deps), n));
}

cudaError_t instantiate(cudaGraphExec_t* out, cudaGraph_t g) {
  SEER_ENTER(other_call);
  return fail(call.ts(), graph::instantiate(G(g), reinterpret_cast<graph::Exec**>(out)));
}

cudaError_t graph_launch(cudaGraphExec_t x, cudaStream_t stream, bool per_thread) {
  cudaError_t err = cudaSuccess;
  if (!ready(err)) return err;
  return fail(Core::instance().thread(), graph::launch(X(x), stream, per_thread));
}

}  // namespace

SEER_CUDA_API cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode) {
  return begin(stream, false, mode, nullptr, nullptr, 0);
}

SEER_CUDA_API cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream,
                                                      cudaStreamCaptureMode mode) {
  return begin(stream, true, mode, nullptr, nullptr, 0);
}

SEER_CUDA_API cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t g,
                                                        const cudaGraphNode_t* deps,
                                                        const cudaGraphEdgeData* /*edges*/,
                                                        size_t n, cudaStreamCaptureMode mode) {
  if (!g) return cudaErrorInvalidValue;
  return begin(stream, false, mode, g, deps, n);
}

SEER_CUDA_API cudaError_t cudaStreamBeginCaptureToGraph_ptsz(cudaStream_t stream, cudaGraph_t g,
                                                             const cudaGraphNode_t* deps,
                                                             const cudaGraphEdgeData* edges,
                                                             size_t n, cudaStreamCaptureMode mode) {
  if (!g) return cudaErrorInvalidValue;
  (void)edges;
  return begin(stream, true, mode, g, deps, n);
}

static cudaError_t end_capture(cudaStream_t stream, cudaGraph_t* out, bool per_thread) {
  SEER_ENTER(other_call);
  if (!out) return fail(call.ts(), cudaErrorInvalidValue);
  StreamObj* s = resolve(call.ts(), stream, per_thread);
  if (!s) return fail(call.ts(), cudaErrorInvalidResourceHandle);
  return fail(call.ts(), graph::end_capture(s, reinterpret_cast<graph::Graph**>(out)));
}

SEER_CUDA_API cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* out) {
  return end_capture(stream, out, false);
}

SEER_CUDA_API cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t* out) {
  return end_capture(stream, out, true);
}

static cudaError_t update_deps(cudaStream_t stream, cudaGraphNode_t* deps, size_t n, unsigned flags,
                               bool per_thread) {
  SEER_ENTER(other_call);
  StreamObj* s = resolve(call.ts(), stream, per_thread);
  if (!s) return fail(call.ts(), cudaErrorInvalidResourceHandle);
  return fail(call.ts(), graph::update_capture_dependencies(
                             s, reinterpret_cast<graph::Node* const*>(deps), n, flags));
}

SEER_CUDA_API cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream,
                                                              cudaGraphNode_t* deps,
                                                              const cudaGraphEdgeData* /*edges*/,
                                                              size_t n, unsigned flags) {
  return update_deps(stream, deps, n, flags, false);
}

SEER_CUDA_API cudaError_t cudaStreamUpdateCaptureDependencies_ptsz(
    cudaStream_t stream, cudaGraphNode_t* deps, const cudaGraphEdgeData* /*edges*/, size_t n,
    unsigned flags) {
  return update_deps(stream, deps, n, flags, true);
}

// ---- Graphs ----

SEER_CUDA_API cudaError_t cudaGraphCreate(cudaGraph_t* out, unsigned flags) {
  SEER_ENTER(other_call);
  if (!out || flags != 0) return fail(call.ts(), cudaErrorInvalidValue);
  *out = reinterpret_cast<cudaGraph_t>(graph::create_graph());
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaGraphDestroy(cudaGraph_t g) {
  SEER_ENTER(other_call);
  return fail(call.ts(), graph::destroy_graph(G(g)));
}

SEER_CUDA_API cudaError_t cudaGraphGetNodes(cudaGraph_t g, cudaGraphNode_t* nodes, size_t* n) {
  SEER_ENTER(other_call);
  return fail(call.ts(), graph::graph_nodes(G(g), reinterpret_cast<graph::Node**>(nodes), n));
}

SEER_CUDA_API cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t* deps,
                                                       cudaGraphEdgeData* edges, size_t* n) {
  SEER_ENTER(other_call);
  const size_t room = n ? *n : 0;
  cudaError_t err = graph::node_dependencies(N(node), reinterpret_cast<graph::Node**>(deps), n);
  if (err == cudaSuccess && edges) {
    for (size_t i = 0; i < room; ++i) edges[i] = cudaGraphEdgeData{};
  }
  return fail(call.ts(), err);
}

SEER_CUDA_API cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, cudaGraphNodeType* type) {
  SEER_ENTER(other_call);
  int t = 0;
  cudaError_t err = graph::node_type(N(node), &t);
  if (err == cudaSuccess) *type = static_cast<cudaGraphNodeType>(t);
  return fail(call.ts(), err);
}

SEER_CUDA_API cudaError_t cudaGraphDebugDotPrint(cudaGraph_t g, const char* path,
                                                 unsigned /*flags*/) {
  SEER_ENTER(other_call);
  return fail(call.ts(), graph::dot_print(G(g), path));
}

// ---- Executable graphs ----

SEER_CUDA_API cudaError_t cudaGraphInstantiate(cudaGraphExec_t* out, cudaGraph_t g,
                                               unsigned long long /*flags*/) {
  return instantiate(out, g);
}

SEER_CUDA_API cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* out, cudaGraph_t g,
                                                        unsigned long long /*flags*/) {
  return instantiate(out, g);
}

SEER_CUDA_API cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t* out, cudaGraph_t g,
                                                         cudaGraphInstantiateParams* params) {
  if (!params) return cudaErrorInvalidValue;
  const cudaError_t err = instantiate(out, g);
  params->errNode_out = nullptr;
  params->result_out = err == cudaSuccess ? cudaGraphInstantiateSuccess : cudaGraphInstantiateError;
  return err;
}

SEER_CUDA_API cudaError_t cudaGraphExecDestroy(cudaGraphExec_t x) {
  SEER_ENTER(other_call);
  return fail(call.ts(), graph::destroy_exec(X(x)));
}

SEER_CUDA_API cudaError_t cudaGraphExecUpdate(cudaGraphExec_t x, cudaGraph_t g,
                                              cudaGraphExecUpdateResultInfo* info) {
  SEER_ENTER(other_call);
  const cudaError_t err = graph::update_exec(X(x), G(g));
  if (info) {
    *info = cudaGraphExecUpdateResultInfo{};
    info->result = err == cudaSuccess ? cudaGraphExecUpdateSuccess
                   : err == cudaErrorGraphExecUpdateFailure
                       ? cudaGraphExecUpdateErrorTopologyChanged
                       : cudaGraphExecUpdateError;
  }
  return fail(call.ts(), err);
}

SEER_CUDA_API cudaError_t cudaGraphLaunch(cudaGraphExec_t x, cudaStream_t stream) {
  SEER_API_SCOPE(nullptr)
  return graph_launch(x, stream, false);
}

SEER_CUDA_API cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t x, cudaStream_t stream) {
  SEER_API_SCOPE(nullptr)
  return graph_launch(x, stream, true);
}

// Nothing to upload: the replay's records are built at launch.
static cudaError_t upload(cudaGraphExec_t x, cudaStream_t stream, bool per_thread) {
  SEER_ENTER(other_call);
  if (!graph::valid_exec(X(x))) return fail(call.ts(), cudaErrorInvalidValue);
  if (!resolve(call.ts(), stream, per_thread)) {
    return fail(call.ts(), cudaErrorInvalidResourceHandle);
  }
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaGraphUpload(cudaGraphExec_t x, cudaStream_t stream) {
  return upload(x, stream, false);
}

SEER_CUDA_API cudaError_t cudaGraphUpload_ptsz(cudaGraphExec_t x, cudaStream_t stream) {
  return upload(x, stream, true);
}

// ---- User objects ----

SEER_CUDA_API cudaError_t cudaUserObjectCreate(cudaUserObject_t* out, void* ptr,
                                               cudaHostFn_t destroy, unsigned initial,
                                               unsigned flags) {
  SEER_ENTER(other_call);
  return fail(call.ts(), graph::user_object_create(reinterpret_cast<graph::UserObject**>(out), ptr,
                                                   destroy, initial, flags));
}

SEER_CUDA_API cudaError_t cudaUserObjectRetain(cudaUserObject_t o, unsigned count) {
  SEER_ENTER(other_call);
  return fail(call.ts(), graph::user_object_retain(U(o), count));
}

SEER_CUDA_API cudaError_t cudaUserObjectRelease(cudaUserObject_t o, unsigned count) {
  SEER_ENTER(other_call);
  return fail(call.ts(), graph::user_object_release(U(o), count));
}

SEER_CUDA_API cudaError_t cudaGraphRetainUserObject(cudaGraph_t g, cudaUserObject_t o,
                                                    unsigned count, unsigned flags) {
  SEER_ENTER(other_call);
  return fail(call.ts(), graph::graph_retain_user_object(G(g), U(o), count, flags));
}

SEER_CUDA_API cudaError_t cudaGraphReleaseUserObject(cudaGraph_t g, cudaUserObject_t o,
                                                     unsigned count) {
  SEER_ENTER(other_call);
  return fail(call.ts(), graph::graph_release_user_object(G(g), U(o), count));
}

// ---- Graph memory: graphs allocate nothing of their own ----

SEER_CUDA_API cudaError_t cudaDeviceGetGraphMemAttribute(int device, cudaGraphMemAttributeType attr,
                                                         void* value) {
  SEER_ENTER(other_call);
  if (!valid_device(device)) return fail(call.ts(), cudaErrorInvalidDevice);
  if (!value || attr < cudaGraphMemAttrUsedMemCurrent || attr > cudaGraphMemAttrReservedMemHigh) {
    return fail(call.ts(), cudaErrorInvalidValue);
  }
  *static_cast<uint64_t*>(value) = 0;
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaDeviceSetGraphMemAttribute(int device, cudaGraphMemAttributeType attr,
                                                         void* value) {
  SEER_ENTER(other_call);
  if (!valid_device(device)) return fail(call.ts(), cudaErrorInvalidDevice);
  const bool high = attr == cudaGraphMemAttrUsedMemHigh || attr == cudaGraphMemAttrReservedMemHigh;
  if (!value || !high || *static_cast<uint64_t*>(value) != 0) {
    return fail(call.ts(), cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaDeviceGraphMemTrim(int device) {
  SEER_ENTER(other_call);
  if (!valid_device(device)) return fail(call.ts(), cudaErrorInvalidDevice);
  return cudaSuccess;
}
