#pragma once

// CUDA graphs, shared by the runtime and the driver front-ends (GRAPHS.md): stream capture
// turns the records a capturing stream would have submitted into graph nodes; an instantiated
// graph replays them on the launch stream. No simulation logic: a replayed node is the record
// the original call would have sent.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>

#include "core.h"
#include "cuda_state.h"

namespace seer::client::graph {

struct Graph;
struct Exec;
struct Node;
struct UserObject;

// ---- The submission path (ops_*.cpp, cuBLAS, cuDNN, NCCL) ----

// Submits `r` to `s`, or adds it to the capture `s` belongs to. `effect` (the op's byte
// effects in Payload) runs now when submitted, at each replay when captured. Returns the
// capture's error when the op may not be captured.
cudaError_t submit(ThreadState& ts, StreamObj* s, PodRecord& r,
                   const std::function<void()>& effect = {});
bool capturing(const StreamObj* s);
// A host function on `s`: captured as a host node (true) or to run now (false).
bool capture_host(ThreadState& ts, StreamObj* s, void (*fn)(void*), void* data, cudaError_t& err);
// cudaEventRecord / cudaStreamWaitEvent on a capturing stream, or waiting on an event recorded
// in a capture: handled here (true, result in `err`); false when neither is involved.
bool event_record(ThreadState& ts, StreamObj* s, EventObj* e, cudaError_t& err);
bool stream_wait(ThreadState& ts, StreamObj* s, EventObj* e, cudaError_t& err);
// The event is being destroyed: it leaves any capture.
void forget_event(const EventObj* e);

// ---- Misuse checks ----

// Synchronizing or querying `s`: cudaErrorStreamCaptureUnsupported (and the capture is
// invalidated) when it is capturing.
cudaError_t check_sync(StreamObj* s);
// A potentially unsafe call (cudaMalloc, device synchronization) by the calling thread under
// its capture interaction mode (cudaThreadExchangeStreamCaptureMode).
cudaError_t check_unsafe_call();
// Queries of an event last recorded inside a capture: cudaErrorCapturedEvent.
cudaError_t check_event(const EventObj* e);

// ---- Capture ----

cudaError_t begin_capture(StreamObj* s, int mode, Graph* into, Node* const* deps, size_t n);
cudaError_t end_capture(StreamObj* s, Graph** out);
struct CaptureInfo {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  uint64_t id = 0;
  Graph* graph = nullptr;
  Node* const* deps = nullptr;  // valid until the stream's next captured op
  size_t count = 0;
};
CaptureInfo capture_info(StreamObj* s);
// flags: cudaStreamAddCaptureDependencies (0) or cudaStreamSetCaptureDependencies (1).
cudaError_t update_capture_dependencies(StreamObj* s, Node* const* deps, size_t n, unsigned flags);
// The thread's capture interaction mode; returns the previous one.
int exchange_mode(int mode);

// ---- Graphs and executable graphs ----

Graph* create_graph();
bool valid_graph(const Graph* g);
cudaError_t destroy_graph(Graph* g);
// cudaGraphGetNodes' contract: `nodes` null asks for the count.
cudaError_t graph_nodes(Graph* g, Node** nodes, size_t* count);
cudaError_t node_dependencies(Node* n, Node** deps, size_t* count);
cudaError_t node_type(Node* n, int* type);
cudaError_t instantiate(Graph* g, Exec** out);
bool valid_exec(const Exec* x);
cudaError_t destroy_exec(Exec* x);
// Succeeds when `g` has the topology of the graph `x` came from (node kinds and edges).
cudaError_t update_exec(Exec* x, Graph* g);
// Replays `x` on `stream` inside its own API call (one launch-sized host cost).
cudaError_t launch(Exec* x, const void* stream, bool per_thread);
cudaError_t dot_print(Graph* g, const char* path);

cudaError_t user_object_create(UserObject** out, void* ptr, void (*destroy)(void*),
                               unsigned initial, unsigned flags);
cudaError_t user_object_retain(UserObject* o, unsigned count);
cudaError_t user_object_release(UserObject* o, unsigned count);
cudaError_t graph_retain_user_object(Graph* g, UserObject* o, unsigned count, unsigned flags);
cudaError_t graph_release_user_object(Graph* g, UserObject* o, unsigned count);

}  // namespace seer::client::graph
