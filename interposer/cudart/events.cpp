// Events: records on streams, synchronization, queries and elapsed time between two records.
// The operations live in client/ops_stream.cpp (shared with the driver API).

#include "api.h"

using namespace seer::cudart;
namespace ops = seer::client::ops;

namespace {

cudaError_t record(cudaEvent_t event, cudaStream_t stream, bool per_thread) {
  SEER_ENTER(event_record);
  return fail(call.ts(), ops::event_record(call.ts(), event, stream, per_thread));
}

}  // namespace

SEER_CUDA_API cudaError_t cudaEventCreate(cudaEvent_t* e) { return cudaEventCreateWithFlags(e, 0); }

SEER_CUDA_API cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned flags) {
  SEER_ENTER(other_call);
  return fail(call.ts(), ops::event_create(call.ts(), reinterpret_cast<void**>(e), flags));
}

SEER_CUDA_API cudaError_t cudaEventDestroy(cudaEvent_t event) {
  SEER_ENTER(other_call);
  return fail(call.ts(), ops::event_destroy(event));
}

SEER_CUDA_API cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  SEER_API_SCOPE(nullptr)
  return record(e, s, false);
}
SEER_CUDA_API cudaError_t cudaEventRecord_ptsz(cudaEvent_t e, cudaStream_t s) {
  SEER_API_SCOPE(nullptr)
  return record(e, s, true);
}

SEER_CUDA_API cudaError_t cudaEventRecordWithFlags(cudaEvent_t e, cudaStream_t s, unsigned flags) {
  SEER_API_SCOPE(nullptr)
  if (flags > 1) return cudaErrorInvalidValue;
  return record(e, s, false);
}

SEER_CUDA_API cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t e, cudaStream_t s,
                                                        unsigned flags) {
  SEER_API_SCOPE(nullptr)
  if (flags > 1) return cudaErrorInvalidValue;
  return record(e, s, true);
}

SEER_CUDA_API cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  SEER_ENTER(other_call);
  return fail(call.ts(), ops::event_synchronize(call.ts(), event));
}

SEER_CUDA_API cudaError_t cudaEventQuery(cudaEvent_t event) {
  SEER_ENTER(query);
  return fail(call.ts(), ops::event_query(call.ts(), event));
}

SEER_CUDA_API cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  SEER_ENTER(other_call);
  return fail(call.ts(), ops::event_elapsed(call.ts(), ms, start, end));
}
