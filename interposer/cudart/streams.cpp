// Streams: creation with flags and priority, synchronization, queries, waits on events.

#include "api.h"

using namespace seer::cudart;
using seer::client::EventObj;
using seer::client::PodRecord;
using seer::client::StreamObj;

namespace {

cudaError_t create(cudaStream_t* out, unsigned flags, int priority) {
  SEER_ENTER(other_call);
  if (!out) return fail(call.ts(), cudaErrorInvalidValue);
  if (flags > cudaStreamNonBlocking) return fail(call.ts(), cudaErrorInvalidValue);
  priority = std::max(-5, std::min(0, priority));
  StreamObj* s = CudaState::instance().create_stream(call.ts(), call.ts().device, flags, priority);
  *out = reinterpret_cast<cudaStream_t>(s);
  return cudaSuccess;
}

cudaError_t synchronize(cudaStream_t stream, bool per_thread) {
  SEER_ENTER(other_call);
  StreamObj* s = CudaState::instance().resolve_stream(call.ts(), stream, per_thread);
  if (!s) return fail(call.ts(), cudaErrorInvalidResourceHandle);
  sync_stream(call.ts(), s);
  return cudaSuccess;
}

cudaError_t query(cudaStream_t stream, bool per_thread) {
  SEER_ENTER(query);
  ThreadState& ts = call.ts();
  StreamObj* s = CudaState::instance().resolve_stream(ts, stream, per_thread);
  if (!s) return fail(ts, cudaErrorInvalidResourceHandle);
  if (s->known_for != s->submitted) {
    seer::wire::Request r;
    r.set_stream_query(s->id);
    const uint64_t submitted = s->submitted;
    const seer::wire::Answer a = Core::instance().request(ts, r);
    s->known_for = submitted;
    s->known_completion = a.completion();
  }
  return s->known_completion <= ts.clock.load(std::memory_order_relaxed) ? cudaSuccess
                                                                         : cudaErrorNotReady;
}

cudaError_t wait_event(cudaStream_t stream, cudaEvent_t event, unsigned flags, bool per_thread) {
  SEER_ENTER(stream_wait);
  ThreadState& ts = call.ts();
  StreamObj* s = CudaState::instance().resolve_stream(ts, stream, per_thread);
  EventObj* e = CudaState::instance().find_event(event);
  if (!s || !e) return fail(ts, cudaErrorInvalidResourceHandle);
  if (flags > 1) return fail(ts, cudaErrorInvalidValue);
  PodRecord r;
  r.type = PodRecord::kStreamWaitEvent;
  r.a = s->id;
  r.b = e->id;
  submit(ts, s, r);
  return cudaSuccess;
}

}  // namespace

SEER_CUDA_API cudaError_t cudaStreamCreate(cudaStream_t* s) { return create(s, 0, 0); }

SEER_CUDA_API cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned flags) {
  return create(s, flags, 0);
}

SEER_CUDA_API cudaError_t cudaStreamCreateWithPriority(cudaStream_t* s, unsigned flags,
                                                       int priority) {
  return create(s, flags, priority);
}

SEER_CUDA_API cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  SEER_ENTER(other_call);
  if (!stream || !CudaState::instance().destroy_stream(stream)) {
    return fail(call.ts(), cudaErrorInvalidResourceHandle);
  }
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaStreamSynchronize(cudaStream_t s) { return synchronize(s, false); }
SEER_CUDA_API cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t s) {
  return synchronize(s, true);
}
SEER_CUDA_API cudaError_t cudaStreamQuery(cudaStream_t s) { return query(s, false); }
SEER_CUDA_API cudaError_t cudaStreamQuery_ptsz(cudaStream_t s) { return query(s, true); }

SEER_CUDA_API cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags) {
  return wait_event(s, e, flags, false);
}

SEER_CUDA_API cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t s, cudaEvent_t e, unsigned flags) {
  return wait_event(s, e, flags, true);
}

SEER_CUDA_API cudaError_t cudaStreamGetPriority(cudaStream_t stream, int* priority) {
  SEER_ENTER(other_call);
  StreamObj* s = CudaState::instance().resolve_stream(call.ts(), stream, false);
  if (!s) return fail(call.ts(), cudaErrorInvalidResourceHandle);
  if (!priority) return fail(call.ts(), cudaErrorInvalidValue);
  *priority = s->priority;
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned* flags) {
  SEER_ENTER(other_call);
  StreamObj* s = CudaState::instance().resolve_stream(call.ts(), stream, false);
  if (!s) return fail(call.ts(), cudaErrorInvalidResourceHandle);
  if (!flags) return fail(call.ts(), cudaErrorInvalidValue);
  *flags = s->flags;
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaStreamGetDevice(cudaStream_t stream, int* device) {
  SEER_ENTER(other_call);
  StreamObj* s = CudaState::instance().resolve_stream(call.ts(), stream, false);
  if (!s) return fail(call.ts(), cudaErrorInvalidResourceHandle);
  if (!device) return fail(call.ts(), cudaErrorInvalidValue);
  *device = s->device;
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaStreamIsCapturing(cudaStream_t stream,
                                                cudaStreamCaptureStatus* status) {
  SEER_ENTER(other_call);
  if (!status) return fail(call.ts(), cudaErrorInvalidValue);
  if (!CudaState::instance().resolve_stream(call.ts(), stream, false)) {
    return fail(call.ts(), cudaErrorInvalidResourceHandle);
  }
  *status = cudaStreamCaptureStatusNone;
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream,
                                                     cudaStreamCaptureStatus* status) {
  return cudaStreamIsCapturing(stream, status);
}

SEER_CUDA_API cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode* mode) {
  SEER_ENTER(other_call);
  if (!mode) return fail(call.ts(), cudaErrorInvalidValue);
  return cudaSuccess;
}
