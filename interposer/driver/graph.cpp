// CUDA graphs through the driver API: stream capture, instantiation and launch over the same
// objects as the runtime's (client/graph.h; a cudaGraph_t is a CUgraph). Explicit node
// construction (cuGraphAdd*Node) stays unsupported.

#include "graph.h"

#include "api.h"

using namespace seer::driver;
using seer::client::StreamObj;
namespace graph = seer::client::graph;

namespace {

graph::Graph* G(CUgraph g) { return reinterpret_cast<graph::Graph*>(g); }
graph::Exec* X(CUgraphExec x) { return reinterpret_cast<graph::Exec*>(x); }
graph::Node* N(CUgraphNode n) { return reinterpret_cast<graph::Node*>(n); }
graph::UserObject* U(CUuserObject o) { return reinterpret_cast<graph::UserObject*>(o); }

template <typename F>
CUresult with_call(F f) {
  SEER_CU_ENTER(other_call);
  return to_cu(f(call.ts()));
}

CUresult begin(CUstream stream, bool per_thread, int mode, CUgraph into, const CUgraphNode* deps,
               size_t n) {
  return with_call([&](ThreadState& ts) {
    StreamObj* s = CudaState::instance().resolve_stream(ts, stream, per_thread);
    if (!s) return cudaErrorInvalidResourceHandle;
    return graph::begin_capture(s, mode, G(into), reinterpret_cast<graph::Node* const*>(deps), n);
  });
}

CUresult end(CUstream stream, CUgraph* out, bool per_thread) {
  return with_call([&](ThreadState& ts) {
    if (!out) return cudaErrorInvalidValue;
    StreamObj* s = CudaState::instance().resolve_stream(ts, stream, per_thread);
    if (!s) return cudaErrorInvalidResourceHandle;
    return graph::end_capture(s, reinterpret_cast<graph::Graph**>(out));
  });
}

CUresult update_deps(CUstream stream, CUgraphNode* deps, size_t n, unsigned flags,
                     bool per_thread) {
  return with_call([&](ThreadState& ts) {
    StreamObj* s = CudaState::instance().resolve_stream(ts, stream, per_thread);
    if (!s) return cudaErrorInvalidResourceHandle;
    return graph::update_capture_dependencies(s, reinterpret_cast<graph::Node* const*>(deps), n,
                                              flags);
  });
}

CUresult instantiate(CUgraphExec* out, CUgraph g) {
  return with_call(
      [&](ThreadState&) { return graph::instantiate(G(g), reinterpret_cast<graph::Exec**>(out)); });
}

CUresult launch(CUgraphExec x, CUstream stream, bool per_thread) {
  CUresult err = CUDA_SUCCESS;
  if (!ready(err)) return err;
  return to_cu(graph::launch(X(x), stream, per_thread));
}

CUresult upload(CUgraphExec x, CUstream stream, bool per_thread) {
  return with_call([&](ThreadState& ts) {
    if (!graph::valid_exec(X(x))) return cudaErrorInvalidValue;
    return CudaState::instance().resolve_stream(ts, stream, per_thread)
               ? cudaSuccess
               : cudaErrorInvalidResourceHandle;
  });
}

}  // namespace

// ---- Capture ----

SEER_CU_API CUresult cuStreamBeginCapture(CUstream s) {
  return begin(s, false, CU_STREAM_CAPTURE_MODE_GLOBAL, nullptr, nullptr, 0);
}
SEER_CU_API CUresult cuStreamBeginCapture_ptsz(CUstream s) {
  return begin(s, true, CU_STREAM_CAPTURE_MODE_GLOBAL, nullptr, nullptr, 0);
}
SEER_CU_API CUresult cuStreamBeginCapture_v2(CUstream s, CUstreamCaptureMode mode) {
  return begin(s, false, mode, nullptr, nullptr, 0);
}
SEER_CU_API CUresult cuStreamBeginCapture_v2_ptsz(CUstream s, CUstreamCaptureMode mode) {
  return begin(s, true, mode, nullptr, nullptr, 0);
}
SEER_CU_API CUresult cuStreamBeginCaptureToGraph(CUstream s, CUgraph g, const CUgraphNode* deps,
                                                 const CUgraphEdgeData* /*edges*/, size_t n,
                                                 CUstreamCaptureMode mode) {
  if (!g) return CUDA_ERROR_INVALID_VALUE;
  return begin(s, false, mode, g, deps, n);
}
SEER_CU_API CUresult cuStreamBeginCaptureToGraph_ptsz(CUstream s, CUgraph g,
                                                      const CUgraphNode* deps,
                                                      const CUgraphEdgeData* /*edges*/, size_t n,
                                                      CUstreamCaptureMode mode) {
  if (!g) return CUDA_ERROR_INVALID_VALUE;
  return begin(s, true, mode, g, deps, n);
}

SEER_CU_API CUresult cuStreamEndCapture(CUstream s, CUgraph* out) { return end(s, out, false); }
SEER_CU_API CUresult cuStreamEndCapture_ptsz(CUstream s, CUgraph* out) { return end(s, out, true); }

SEER_CU_API CUresult cuStreamUpdateCaptureDependencies(CUstream s, CUgraphNode* deps, size_t n,
                                                       unsigned flags) {
  return update_deps(s, deps, n, flags, false);
}
SEER_CU_API CUresult cuStreamUpdateCaptureDependencies_ptsz(CUstream s, CUgraphNode* deps, size_t n,
                                                            unsigned flags) {
  return update_deps(s, deps, n, flags, true);
}
SEER_CU_API CUresult cuStreamUpdateCaptureDependencies_v2(CUstream s, CUgraphNode* deps,
                                                          const CUgraphEdgeData* /*edges*/,
                                                          size_t n, unsigned flags) {
  return update_deps(s, deps, n, flags, false);
}
SEER_CU_API CUresult cuStreamUpdateCaptureDependencies_v2_ptsz(CUstream s, CUgraphNode* deps,
                                                               const CUgraphEdgeData* /*edges*/,
                                                               size_t n, unsigned flags) {
  return update_deps(s, deps, n, flags, true);
}

// ---- Graphs ----

SEER_CU_API CUresult cuGraphCreate(CUgraph* out, unsigned flags) {
  return with_call([&](ThreadState&) {
    if (!out || flags != 0) return cudaErrorInvalidValue;
    *out = reinterpret_cast<CUgraph>(graph::create_graph());
    return cudaSuccess;
  });
}

SEER_CU_API CUresult cuGraphDestroy(CUgraph g) {
  return with_call([&](ThreadState&) { return graph::destroy_graph(G(g)); });
}

SEER_CU_API CUresult cuGraphGetNodes(CUgraph g, CUgraphNode* nodes, size_t* n) {
  return with_call([&](ThreadState&) {
    return graph::graph_nodes(G(g), reinterpret_cast<graph::Node**>(nodes), n);
  });
}

SEER_CU_API CUresult cuGraphNodeGetDependencies(CUgraphNode node, CUgraphNode* deps, size_t* n) {
  return with_call([&](ThreadState&) {
    return graph::node_dependencies(N(node), reinterpret_cast<graph::Node**>(deps), n);
  });
}

SEER_CU_API CUresult cuGraphNodeGetDependencies_v2(CUgraphNode node, CUgraphNode* deps,
                                                   CUgraphEdgeData* edges, size_t* n) {
  return with_call([&](ThreadState&) {
    const size_t room = n ? *n : 0;
    cudaError_t err = graph::node_dependencies(N(node), reinterpret_cast<graph::Node**>(deps), n);
    if (err == cudaSuccess && edges) {
      for (size_t i = 0; i < room; ++i) edges[i] = CUgraphEdgeData{};
    }
    return err;
  });
}

SEER_CU_API CUresult cuGraphNodeGetType(CUgraphNode node, CUgraphNodeType* type) {
  return with_call([&](ThreadState&) {
    int t = 0;
    cudaError_t err = graph::node_type(N(node), &t);
    if (err == cudaSuccess) *type = static_cast<CUgraphNodeType>(t);
    return err;
  });
}

SEER_CU_API CUresult cuGraphDebugDotPrint(CUgraph g, const char* path, unsigned /*flags*/) {
  return with_call([&](ThreadState&) { return graph::dot_print(G(g), path); });
}

// ---- Executable graphs ----

// The CUDA 11 ABI (also cuGraphInstantiate_v2): an error node and a log buffer.
static CUresult instantiate_with_log(CUgraphExec* out, CUgraph g, CUgraphNode* error_node,
                                     char* log, size_t log_size) {
  if (error_node) *error_node = nullptr;
  if (log && log_size) log[0] = '\0';
  return instantiate(out, g);
}

SEER_CU_API CUresult cuGraphInstantiate(CUgraphExec* out, CUgraph g, CUgraphNode* error_node,
                                        char* log, size_t log_size) {
  return instantiate_with_log(out, g, error_node, log, log_size);
}

SEER_CU_API CUresult cuGraphInstantiate_v2(CUgraphExec* out, CUgraph g, CUgraphNode* error_node,
                                           char* log, size_t log_size) {
  return instantiate_with_log(out, g, error_node, log, log_size);
}

SEER_CU_API CUresult cuGraphInstantiateWithFlags(CUgraphExec* out, CUgraph g,
                                                 unsigned long long /*flags*/) {
  return instantiate(out, g);
}

static CUresult instantiate_with_params(CUgraphExec* out, CUgraph g,
                                        CUDA_GRAPH_INSTANTIATE_PARAMS* params) {
  if (!params) return CUDA_ERROR_INVALID_VALUE;
  const CUresult err = instantiate(out, g);
  params->hErrNode_out = nullptr;
  params->result_out =
      err == CUDA_SUCCESS ? CUDA_GRAPH_INSTANTIATE_SUCCESS : CUDA_GRAPH_INSTANTIATE_ERROR;
  return err;
}

SEER_CU_API CUresult cuGraphInstantiateWithParams(CUgraphExec* out, CUgraph g,
                                                  CUDA_GRAPH_INSTANTIATE_PARAMS* params) {
  return instantiate_with_params(out, g, params);
}

SEER_CU_API CUresult cuGraphInstantiateWithParams_ptsz(CUgraphExec* out, CUgraph g,
                                                       CUDA_GRAPH_INSTANTIATE_PARAMS* params) {
  return instantiate_with_params(out, g, params);
}

SEER_CU_API CUresult cuGraphExecDestroy(CUgraphExec x) {
  return with_call([&](ThreadState&) { return graph::destroy_exec(X(x)); });
}

SEER_CU_API CUresult cuGraphExecUpdate(CUgraphExec x, CUgraph g, CUgraphNode* error_node,
                                       CUgraphExecUpdateResult* result) {
  return with_call([&](ThreadState&) {
    const cudaError_t err = graph::update_exec(X(x), G(g));
    if (error_node) *error_node = nullptr;
    if (result) {
      *result = err == cudaSuccess ? CU_GRAPH_EXEC_UPDATE_SUCCESS
                                   : CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
    }
    return err;
  });
}

SEER_CU_API CUresult cuGraphExecUpdate_v2(CUgraphExec x, CUgraph g,
                                          CUgraphExecUpdateResultInfo* info) {
  return with_call([&](ThreadState&) {
    const cudaError_t err = graph::update_exec(X(x), G(g));
    if (info) {
      *info = CUgraphExecUpdateResultInfo{};
      info->result = err == cudaSuccess ? CU_GRAPH_EXEC_UPDATE_SUCCESS
                                        : CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
    }
    return err;
  });
}

SEER_CU_API CUresult cuGraphLaunch(CUgraphExec x, CUstream s) {
  SEER_CU_API_SCOPE(nullptr) return launch(x, s, false);
}
SEER_CU_API CUresult cuGraphLaunch_ptsz(CUgraphExec x, CUstream s) {
  SEER_CU_API_SCOPE(nullptr) return launch(x, s, true);
}
SEER_CU_API CUresult cuGraphUpload(CUgraphExec x, CUstream s) { return upload(x, s, false); }
SEER_CU_API CUresult cuGraphUpload_ptsz(CUgraphExec x, CUstream s) { return upload(x, s, true); }

// ---- User objects ----

SEER_CU_API CUresult cuUserObjectCreate(CUuserObject* out, void* ptr, CUhostFn destroy,
                                        unsigned initial, unsigned flags) {
  return with_call([&](ThreadState&) {
    return graph::user_object_create(reinterpret_cast<graph::UserObject**>(out), ptr, destroy,
                                     initial, flags);
  });
}

SEER_CU_API CUresult cuUserObjectRetain(CUuserObject o, unsigned count) {
  return with_call([&](ThreadState&) { return graph::user_object_retain(U(o), count); });
}

SEER_CU_API CUresult cuUserObjectRelease(CUuserObject o, unsigned count) {
  return with_call([&](ThreadState&) { return graph::user_object_release(U(o), count); });
}

SEER_CU_API CUresult cuGraphRetainUserObject(CUgraph g, CUuserObject o, unsigned count,
                                             unsigned flags) {
  return with_call(
      [&](ThreadState&) { return graph::graph_retain_user_object(G(g), U(o), count, flags); });
}

SEER_CU_API CUresult cuGraphReleaseUserObject(CUgraph g, CUuserObject o, unsigned count) {
  return with_call(
      [&](ThreadState&) { return graph::graph_release_user_object(G(g), U(o), count); });
}

// ---- Graph memory: graphs allocate nothing of their own ----

SEER_CU_API CUresult cuDeviceGetGraphMemAttribute(CUdevice device, CUgraphMem_attribute attr,
                                                  void* value) {
  return with_call([&](ThreadState&) {
    if (!valid_device(device)) return cudaErrorInvalidDevice;
    if (!value || attr < CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT ||
        attr > CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH) {
      return cudaErrorInvalidValue;
    }
    *static_cast<cuuint64_t*>(value) = 0;
    return cudaSuccess;
  });
}

SEER_CU_API CUresult cuDeviceSetGraphMemAttribute(CUdevice device, CUgraphMem_attribute attr,
                                                  void* value) {
  return with_call([&](ThreadState&) {
    if (!valid_device(device)) return cudaErrorInvalidDevice;
    const bool high =
        attr == CU_GRAPH_MEM_ATTR_USED_MEM_HIGH || attr == CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH;
    if (!value || !high || *static_cast<cuuint64_t*>(value) != 0) return cudaErrorInvalidValue;
    return cudaSuccess;
  });
}

SEER_CU_API CUresult cuDeviceGraphMemTrim(CUdevice device) {
  return with_call(
      [&](ThreadState&) { return valid_device(device) ? cudaSuccess : cudaErrorInvalidDevice; });
}
