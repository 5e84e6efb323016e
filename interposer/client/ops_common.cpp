#include "activity.h"
#include "ops.h"
#include "user_object_destructors.h"

namespace seer::client::ops {

cudaError_t not_joined_error() {
  Core& core = Core::instance();
  if (core.shut_down() && !core.forked_child()) return cudaErrorCudartUnloading;
  if (core.forked_child()) return cudaErrorInitializationError;
  return cudaErrorNoDevice;
}

void submit(ThreadState& ts, StreamObj* s, PodRecord& r) {
  r.t = ts.clock.load(std::memory_order_relaxed);
  ++s->submitted;
  activity::note_submit(ts, *s, r);
  Core::instance().add_record(ts, r);
}

void sync_stream(ThreadState& ts, StreamObj* s) {
  release_user_object_destructors();
  const Core& core = Core::instance();
  if (s->known_for == s->submitted) {
    // The session already told us when this stream's work completes; answer locally with the
    // same rule the session applies.
    const Time now = ts.clock.load(std::memory_order_relaxed);
    if (s->known_completion > now) {
      ts.clock.store(s->known_completion + core.costs().sync_return(), std::memory_order_relaxed);
    }
    return;
  }
  wire::Request r;
  r.set_stream_sync(s->id);
  const uint64_t submitted = s->submitted;
  const wire::Answer a = Core::instance().request(ts, r);
  s->known_for = submitted;
  s->known_completion = a.completion();
}

void sync_device(ThreadState& ts, int device) {
  release_user_object_destructors();
  wire::Request r;
  r.set_device_sync(device);
  Core::instance().request(ts, r);
  for (StreamObj* s : CudaState::instance().streams_of_device(device)) s->known_for = UINT64_MAX;
}

}  // namespace seer::client::ops
