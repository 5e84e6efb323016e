#include "submit.h"

#include <string>

#include "core.h"
#include "cuda_state.h"
#include "graph.h"

namespace seer::cudnn {

using client::ApiCall;
using client::Core;
using client::CudaState;
using client::PodRecord;
using client::StreamObj;
using client::ThreadState;

namespace {
thread_local std::string t_last_error;
}  // namespace

bool joined() { return Core::instance().ensure_joined(); }

cudnnStatus_t enqueue(const void* stream, const std::vector<LibraryOp>& ops) {
  Core& core = Core::instance();
  if (!core.ensure_joined()) return CUDNN_STATUS_NOT_INITIALIZED;
  if (ops.empty()) return CUDNN_STATUS_SUCCESS;
  ApiCall call(core,
               core.costs().launch() * static_cast<int64_t>(ops.size()) + core.framework_cost());
  ThreadState& ts = call.ts();
  StreamObj* s = CudaState::instance().resolve_stream(ts, stream, false);
  if (!s) return fail(CUDNN_STATUS_EXECUTION_FAILED, "the handle's stream is not a live stream");
  for (const LibraryOp& op : ops) {
    auto* l = new wire::LibraryCall();
    l->set_stream(s->id);
    l->set_api(op.api);
    l->set_m(op.m);
    l->set_n(op.n);
    l->set_k(op.k);
    l->set_batch(op.batch);
    l->set_dtype(op.dtype);
    l->set_compute(op.compute);
    l->set_gemm(op.gemm);
    l->set_bytes(op.bytes);
    PodRecord r;
    r.type = PodRecord::kLibrary;
    r.library = l;
    // A stream being captured into a CUDA graph takes the call as a node instead.
    if (seer::client::graph::submit(ts, s, r) != cudaSuccess) {
      return fail(CUDNN_STATUS_EXECUTION_FAILED, "the stream's capture was invalidated");
    }
  }
  return CUDNN_STATUS_SUCCESS;
}

void charge_host_call() {
  Core& core = Core::instance();
  if (!core.ensure_joined()) return;
  ApiCall call(core, core.costs().other_call());
}

cudnnStatus_t fail(cudnnStatus_t s, const char* what) {
  t_last_error = std::string(status_name(s)) + ": " + what;
  return s;
}

const char* last_error() { return t_last_error.c_str(); }

void clear_last_error() { t_last_error.clear(); }

}  // namespace seer::cudnn
