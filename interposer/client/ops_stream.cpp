// Streams and events, shared by cudaStream*/cudaEvent* and cuStream*/cuEvent*: the handle an
// application holds is the same object in both APIs.

#include <algorithm>

#include "activity.h"
#include "graph.h"
#include "ops.h"

namespace seer::client::ops {
namespace {

// Learns the completion time of the event's latest record from the session (once final): waits
// for it.
void learn(ThreadState& ts, EventObj* e) {
  if (e->completion != kUnknown) return;
  wire::Request r;
  r.set_event_query(e->id);
  e->completion = Core::instance().request(ts, r).completion();
}

// Whether the event's latest record is complete at the thread's clock (its completion time is
// then known too). A query never waits for the work: the session answers for a submitting thread
// once it has simulated up to that thread's clock, and for an observer (a watchdog polling
// events) at once, from what it has simulated so far (THREADS.md, "Queries").
bool complete_now(ThreadState& ts, EventObj* e) {
  if (e->completion == kUnknown) {
    wire::Request r;
    r.set_event_query(e->id);
    r.set_at_clock(true);
    const wire::Answer a = Core::instance().request(ts, r);
    if (!a.ready()) return false;  // the completion is learnt once it is complete
    e->completion = a.completion();
  }
  return e->completion <= ts.clock.load(std::memory_order_relaxed);
}

}  // namespace

cudaError_t stream_create(ThreadState& ts, void** out, unsigned flags, int priority) {
  if (!out) return cudaErrorInvalidValue;
  if (flags > cudaStreamNonBlocking) return cudaErrorInvalidValue;
  priority = std::max(-5, std::min(0, priority));
  *out = CudaState::instance().create_stream(ts, ts.device, flags, priority);
  return cudaSuccess;
}

cudaError_t stream_destroy(const void* stream) {
  if (!stream || !CudaState::instance().destroy_stream(stream)) {
    return cudaErrorInvalidResourceHandle;
  }
  return cudaSuccess;
}

cudaError_t stream_synchronize(ThreadState& ts, const void* stream, bool per_thread) {
  StreamObj* s = CudaState::instance().resolve_stream(ts, stream, per_thread);
  if (!s) return cudaErrorInvalidResourceHandle;
  if (cudaError_t e = graph::check_sync(s); e != cudaSuccess) return e;
  activity::SyncNote note(ts, activity::SyncKind::kStream, s->device, s->id);
  sync_stream(ts, s);
  return cudaSuccess;
}

cudaError_t stream_query(ThreadState& ts, const void* stream, bool per_thread) {
  StreamObj* s = CudaState::instance().resolve_stream(ts, stream, per_thread);
  if (!s) return cudaErrorInvalidResourceHandle;
  if (cudaError_t e = graph::check_sync(s); e != cudaSuccess) return e;
  if (s->known_for != s->submitted) {
    wire::Request r;
    r.set_stream_query(s->id);
    r.set_at_clock(true);
    const uint64_t submitted = s->submitted;
    const wire::Answer a = Core::instance().request(ts, r);
    if (!a.ready()) return cudaErrorNotReady;
    s->known_for = submitted;
    s->known_completion = a.completion();
  }
  return s->known_completion <= ts.clock.load(std::memory_order_relaxed) ? cudaSuccess
                                                                         : cudaErrorNotReady;
}

cudaError_t stream_wait_event(ThreadState& ts, const void* stream, const void* event,
                              unsigned flags, bool per_thread) {
  StreamObj* s = CudaState::instance().resolve_stream(ts, stream, per_thread);
  EventObj* e = CudaState::instance().find_event(event);
  if (!s || !e) return cudaErrorInvalidResourceHandle;
  if (flags > 1) return cudaErrorInvalidValue;
  if (cudaError_t err; graph::stream_wait(ts, s, e, err)) return err;
  activity::SyncNote note(ts, activity::SyncKind::kStreamWaitEvent, s->device, s->id, e->id);
  PodRecord r;
  r.type = PodRecord::kStreamWaitEvent;
  r.a = s->id;
  r.b = e->id;
  submit(ts, s, r);
  return cudaSuccess;
}

cudaError_t event_create(ThreadState& ts, void** out, unsigned flags) {
  if (!out) return cudaErrorInvalidValue;
  constexpr unsigned kKnown =
      cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
  if (flags & ~kKnown) return cudaErrorInvalidValue;
  if ((flags & cudaEventInterprocess) && !(flags & cudaEventDisableTiming)) {
    return cudaErrorInvalidValue;
  }
  *out = CudaState::instance().create_event(ts.device, flags);
  return cudaSuccess;
}

cudaError_t event_destroy(const void* event) {
  graph::forget_event(static_cast<const EventObj*>(event));
  if (!event || !CudaState::instance().destroy_event(event)) return cudaErrorInvalidResourceHandle;
  return cudaSuccess;
}

cudaError_t event_record(ThreadState& ts, const void* event, const void* stream, bool per_thread) {
  EventObj* e = CudaState::instance().find_event(event);
  StreamObj* s = CudaState::instance().resolve_stream(ts, stream, per_thread);
  if (!e || !s) return cudaErrorInvalidResourceHandle;
  if (cudaError_t err; graph::event_record(ts, s, e, err)) return err;
  e->recorded = true;
  e->completion = kUnknown;
  PodRecord r;
  r.type = PodRecord::kEventRecord;
  r.a = e->id;
  r.b = s->id;
  submit(ts, s, r);
  return cudaSuccess;
}

cudaError_t event_synchronize(ThreadState& ts, const void* event) {
  EventObj* e = CudaState::instance().find_event(event);
  if (!e) return cudaErrorInvalidResourceHandle;
  if (cudaError_t err = graph::check_event(e); err != cudaSuccess) return err;
  if (!e->recorded) return cudaSuccess;
  activity::SyncNote note(ts, activity::SyncKind::kEvent, e->device, activity::Sync::kNone, e->id);
  learn(ts, e);
  if (e->completion > ts.clock.load(std::memory_order_relaxed)) {
    ts.clock.store(e->completion + Core::instance().costs().sync_return(),
                   std::memory_order_relaxed);
  }
  return cudaSuccess;
}

cudaError_t event_query(ThreadState& ts, const void* event) {
  EventObj* e = CudaState::instance().find_event(event);
  if (!e) return cudaErrorInvalidResourceHandle;
  if (cudaError_t err = graph::check_event(e); err != cudaSuccess) return err;
  if (!e->recorded) return cudaSuccess;
  return complete_now(ts, e) ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t event_elapsed(ThreadState& ts, float* ms, const void* start, const void* end) {
  if (!ms) return cudaErrorInvalidValue;
  EventObj* a = CudaState::instance().find_event(start);
  EventObj* b = CudaState::instance().find_event(end);
  if (!a || !b) return cudaErrorInvalidResourceHandle;
  if (graph::check_event(a) != cudaSuccess || graph::check_event(b) != cudaSuccess) {
    return cudaErrorCapturedEvent;
  }
  if ((a->flags | b->flags) & cudaEventDisableTiming) return cudaErrorInvalidResourceHandle;
  if (!a->recorded || !b->recorded) return cudaErrorInvalidResourceHandle;
  if (!complete_now(ts, a) || !complete_now(ts, b)) return cudaErrorNotReady;
  *ms = static_cast<float>(static_cast<double>(b->completion - a->completion) / 1e6);
  return cudaSuccess;
}

}  // namespace seer::client::ops
