// Events: records on streams, synchronization, queries and elapsed time between two records.

#include "api.h"

using namespace seer::cudart;
using seer::client::EventObj;
using seer::client::kUnknown;
using seer::client::PodRecord;
using seer::client::StreamObj;

namespace {

cudaError_t create(cudaEvent_t* out, unsigned flags) {
  SEER_ENTER(other_call);
  if (!out) return fail(call.ts(), cudaErrorInvalidValue);
  constexpr unsigned kKnown =
      cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
  if (flags & ~kKnown) return fail(call.ts(), cudaErrorInvalidValue);
  if ((flags & cudaEventInterprocess) && !(flags & cudaEventDisableTiming)) {
    return fail(call.ts(), cudaErrorInvalidValue);
  }
  *out = reinterpret_cast<cudaEvent_t>(CudaState::instance().create_event(call.ts().device, flags));
  return cudaSuccess;
}

cudaError_t record(cudaEvent_t event, cudaStream_t stream, bool per_thread) {
  SEER_ENTER(event_record);
  ThreadState& ts = call.ts();
  EventObj* e = CudaState::instance().find_event(event);
  StreamObj* s = CudaState::instance().resolve_stream(ts, stream, per_thread);
  if (!e || !s) return fail(ts, cudaErrorInvalidResourceHandle);
  e->recorded = true;
  e->completion = kUnknown;
  PodRecord r;
  r.type = PodRecord::kEventRecord;
  r.a = e->id;
  r.b = s->id;
  submit(ts, s, r);
  return cudaSuccess;
}

// Learns the completion time of the event's latest record from the session (once final).
void learn(ThreadState& ts, EventObj* e) {
  if (e->completion != kUnknown) return;
  seer::wire::Request r;
  r.set_event_query(e->id);
  e->completion = Core::instance().request(ts, r).completion();
}

}  // namespace

SEER_CUDA_API cudaError_t cudaEventCreate(cudaEvent_t* e) { return create(e, 0); }

SEER_CUDA_API cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned flags) {
  return create(e, flags);
}

SEER_CUDA_API cudaError_t cudaEventDestroy(cudaEvent_t event) {
  SEER_ENTER(other_call);
  if (!event || !CudaState::instance().destroy_event(event)) {
    return fail(call.ts(), cudaErrorInvalidResourceHandle);
  }
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  return record(e, s, false);
}
SEER_CUDA_API cudaError_t cudaEventRecord_ptsz(cudaEvent_t e, cudaStream_t s) {
  return record(e, s, true);
}

SEER_CUDA_API cudaError_t cudaEventRecordWithFlags(cudaEvent_t e, cudaStream_t s, unsigned flags) {
  if (flags > 1) return cudaErrorInvalidValue;
  return record(e, s, false);
}

SEER_CUDA_API cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t e, cudaStream_t s,
                                                        unsigned flags) {
  if (flags > 1) return cudaErrorInvalidValue;
  return record(e, s, true);
}

SEER_CUDA_API cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  SEER_ENTER(other_call);
  ThreadState& ts = call.ts();
  EventObj* e = CudaState::instance().find_event(event);
  if (!e) return fail(ts, cudaErrorInvalidResourceHandle);
  if (!e->recorded) return cudaSuccess;
  learn(ts, e);
  if (e->completion > ts.clock.load(std::memory_order_relaxed)) {
    ts.clock.store(e->completion + Core::instance().costs().sync_return(),
                   std::memory_order_relaxed);
  }
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaEventQuery(cudaEvent_t event) {
  SEER_ENTER(query);
  ThreadState& ts = call.ts();
  EventObj* e = CudaState::instance().find_event(event);
  if (!e) return fail(ts, cudaErrorInvalidResourceHandle);
  if (!e->recorded) return cudaSuccess;
  learn(ts, e);
  return e->completion <= ts.clock.load(std::memory_order_relaxed) ? cudaSuccess
                                                                   : cudaErrorNotReady;
}

SEER_CUDA_API cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  SEER_ENTER(other_call);
  ThreadState& ts = call.ts();
  if (!ms) return fail(ts, cudaErrorInvalidValue);
  EventObj* a = CudaState::instance().find_event(start);
  EventObj* b = CudaState::instance().find_event(end);
  if (!a || !b) return fail(ts, cudaErrorInvalidResourceHandle);
  if ((a->flags | b->flags) & cudaEventDisableTiming) {
    return fail(ts, cudaErrorInvalidResourceHandle);
  }
  if (!a->recorded || !b->recorded) return fail(ts, cudaErrorInvalidResourceHandle);
  learn(ts, a);
  learn(ts, b);
  const auto now = ts.clock.load(std::memory_order_relaxed);
  if (a->completion > now || b->completion > now) return fail(ts, cudaErrorNotReady);
  *ms = static_cast<float>(static_cast<double>(b->completion - a->completion) / 1e6);
  return cudaSuccess;
}
