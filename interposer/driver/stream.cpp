// Streams and events through the driver API: the same objects as the runtime's (a cudaStream_t
// is a CUstream), over client/ops_stream.cpp. Stream memory operations are tiny ops on the
// stream: a write is a 4- or 8-byte memset (its value lands in the program's bytes); a wait
// is satisfied by the stream's earlier work (nothing else can write the value in simulation).

#include "api.h"
#include "graph.h"

using namespace seer::driver;
using seer::client::StreamObj;

namespace {

using HC = seer::wire::HostCosts;

template <typename F>
CUresult with_call(seer::client::Time (HC::*cost)() const, F f) {
  CUresult err = CUDA_SUCCESS;
  if (!ready(err)) return err;
  ApiCall call(Core::instance(), (Core::instance().costs().*cost)());
  return to_cu(f(call.ts()));
}

StreamObj* resolve(ThreadState& ts, CUstream s, bool per_thread) {
  return CudaState::instance().resolve_stream(ts, s, per_thread);
}

CUresult write_value(CUstream stream, CUdeviceptr address, uint64_t value, uint32_t bytes,
                     bool per_thread) {
  return with_call(&HC::memcpy_async, [&](ThreadState& ts) {
    if (address % bytes != 0) return cudaErrorInvalidValue;
    return ops::fill(ts, from_dptr(address), value, bytes, 1, stream, true, per_thread);
  });
}

CUresult wait_value(CUstream stream, CUdeviceptr address, bool per_thread) {
  return with_call(&HC::stream_wait, [&](ThreadState& ts) {
    if (!ops::valid_device_range(from_dptr(address), 4)) return cudaErrorInvalidValue;
    return resolve(ts, stream, per_thread) ? cudaSuccess : cudaErrorInvalidResourceHandle;
  });
}

CUresult batch(CUstream stream, unsigned count, CUstreamBatchMemOpParams* ops_list,
               bool per_thread) {
  if (count > 0 && !ops_list) return CUDA_ERROR_INVALID_VALUE;
  for (unsigned i = 0; i < count; ++i) {
    const CUstreamBatchMemOpParams& p = ops_list[i];
    CUresult r = CUDA_SUCCESS;
    switch (p.operation) {
      case CU_STREAM_MEM_OP_WRITE_VALUE_32:
        r = write_value(stream, p.writeValue.address, p.writeValue.value, 4, per_thread);
        break;
      case CU_STREAM_MEM_OP_WRITE_VALUE_64:
        r = write_value(stream, p.writeValue.address, p.writeValue.value64, 8, per_thread);
        break;
      case CU_STREAM_MEM_OP_WAIT_VALUE_32:
      case CU_STREAM_MEM_OP_WAIT_VALUE_64:
        r = wait_value(stream, p.waitValue.address, per_thread);
        break;
      case CU_STREAM_MEM_OP_BARRIER:
      case CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES:
        break;
      default:
        r = CUDA_ERROR_NOT_SUPPORTED;
    }
    if (r != CUDA_SUCCESS) return r;
  }
  return CUDA_SUCCESS;
}

}  // namespace

// ---- Streams ----

SEER_CU_API CUresult cuStreamCreate(CUstream* out, unsigned flags) {
  SEER_CU_ENTER(other_call);
  return to_cu(ops::stream_create(call.ts(), reinterpret_cast<void**>(out), flags, 0));
}

SEER_CU_API CUresult cuStreamCreateWithPriority(CUstream* out, unsigned flags, int priority) {
  SEER_CU_ENTER(other_call);
  return to_cu(ops::stream_create(call.ts(), reinterpret_cast<void**>(out), flags, priority));
}

SEER_CU_API CUresult cuStreamDestroy_v2(CUstream stream) {
  SEER_CU_ENTER(other_call);
  return to_cu(ops::stream_destroy(stream));
}

SEER_CU_API CUresult cuStreamDestroy(CUstream stream) { return cuStreamDestroy_v2(stream); }

#define SEER_STREAM_PAIR(name, body_call)         \
  SEER_CU_API CUresult name(CUstream s) {         \
    SEER_CU_ENTER(other_call);                    \
    return to_cu(body_call(call.ts(), s, false)); \
  }                                               \
  SEER_CU_API CUresult name##_ptsz(CUstream s) {  \
    SEER_CU_ENTER(other_call);                    \
    return to_cu(body_call(call.ts(), s, true));  \
  }

SEER_STREAM_PAIR(cuStreamSynchronize, ops::stream_synchronize)
SEER_STREAM_PAIR(cuStreamQuery, ops::stream_query)

SEER_CU_API CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned flags) {
  SEER_CU_API_SCOPE(nullptr)
  return with_call(&HC::stream_wait,
                   [&](ThreadState& ts) { return ops::stream_wait_event(ts, s, e, flags, false); });
}

SEER_CU_API CUresult cuStreamWaitEvent_ptsz(CUstream s, CUevent e, unsigned flags) {
  SEER_CU_API_SCOPE(nullptr)
  return with_call(&HC::stream_wait,
                   [&](ThreadState& ts) { return ops::stream_wait_event(ts, s, e, flags, true); });
}

#define SEER_STREAM_GETTER(name, Type, expr)                                              \
  static CUresult name##_impl(CUstream stream, Type* out, bool per_thread) {              \
    SEER_CU_ENTER(other_call);                                                            \
    StreamObj* s = resolve(call.ts(), stream, per_thread);                                \
    if (!s) return CUDA_ERROR_INVALID_HANDLE;                                             \
    if (!out) return CUDA_ERROR_INVALID_VALUE;                                            \
    *out = expr;                                                                          \
    return CUDA_SUCCESS;                                                                  \
  }                                                                                       \
  SEER_CU_API CUresult name(CUstream s, Type* out) { return name##_impl(s, out, false); } \
  SEER_CU_API CUresult name##_ptsz(CUstream s, Type* out) { return name##_impl(s, out, true); }

SEER_STREAM_GETTER(cuStreamGetPriority, int, s->priority)
SEER_STREAM_GETTER(cuStreamGetFlags, unsigned, s->flags)
SEER_STREAM_GETTER(cuStreamGetId, unsigned long long, s->id)
SEER_STREAM_GETTER(cuStreamGetDevice, CUdevice, s->device)
SEER_STREAM_GETTER(cuStreamGetCtx, CUcontext,
                   reinterpret_cast<CUcontext>(primary_context(s->device)))
SEER_STREAM_GETTER(cuStreamIsCapturing, CUstreamCaptureStatus,
                   static_cast<CUstreamCaptureStatus>(seer::client::graph::capture_info(s).status))

static CUresult capture_info(CUstream stream, CUstreamCaptureStatus* status, cuuint64_t* id,
                             CUgraph* graph, const CUgraphNode** deps,
                             const CUgraphEdgeData** edges, size_t* count, bool per_thread) {
  SEER_CU_ENTER(other_call);
  if (!status) return CUDA_ERROR_INVALID_VALUE;
  StreamObj* s = resolve(call.ts(), stream, per_thread);
  if (!s) return CUDA_ERROR_INVALID_HANDLE;
  const seer::client::graph::CaptureInfo info = seer::client::graph::capture_info(s);
  *status = static_cast<CUstreamCaptureStatus>(info.status);
  if (id) *id = info.id;
  if (graph) *graph = reinterpret_cast<CUgraph>(info.graph);
  if (deps) *deps = reinterpret_cast<const CUgraphNode*>(info.deps);
  if (edges) *edges = nullptr;
  if (count) *count = info.count;
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuStreamGetCaptureInfo_v3(CUstream s, CUstreamCaptureStatus* st,
                                               cuuint64_t* id, CUgraph* g, const CUgraphNode** d,
                                               const CUgraphEdgeData** e, size_t* n) {
  return capture_info(s, st, id, g, d, e, n, false);
}
SEER_CU_API CUresult cuStreamGetCaptureInfo_v3_ptsz(CUstream s, CUstreamCaptureStatus* st,
                                                    cuuint64_t* id, CUgraph* g,
                                                    const CUgraphNode** d,
                                                    const CUgraphEdgeData** e, size_t* n) {
  return capture_info(s, st, id, g, d, e, n, true);
}
SEER_CU_API CUresult cuStreamGetCaptureInfo_v2(CUstream s, CUstreamCaptureStatus* st,
                                               cuuint64_t* id, CUgraph* g, const CUgraphNode** d,
                                               size_t* n) {
  return capture_info(s, st, id, g, d, nullptr, n, false);
}
SEER_CU_API CUresult cuStreamGetCaptureInfo_v2_ptsz(CUstream s, CUstreamCaptureStatus* st,
                                                    cuuint64_t* id, CUgraph* g,
                                                    const CUgraphNode** d, size_t* n) {
  return capture_info(s, st, id, g, d, nullptr, n, true);
}
SEER_CU_API CUresult cuStreamGetCaptureInfo(CUstream s, CUstreamCaptureStatus* st, cuuint64_t* id) {
  return capture_info(s, st, id, nullptr, nullptr, nullptr, nullptr, false);
}
SEER_CU_API CUresult cuStreamGetCaptureInfo_ptsz(CUstream s, CUstreamCaptureStatus* st,
                                                 cuuint64_t* id) {
  return capture_info(s, st, id, nullptr, nullptr, nullptr, nullptr, true);
}

SEER_CU_API CUresult cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode* mode) {
  if (!mode || *mode > CU_STREAM_CAPTURE_MODE_RELAXED) return CUDA_ERROR_INVALID_VALUE;
  *mode = static_cast<CUstreamCaptureMode>(seer::client::graph::exchange_mode(*mode));
  return CUDA_SUCCESS;
}

// ---- Stream memory operations ----

#define SEER_WRITE_VALUE(name, Type, bytes)                                                 \
  SEER_CU_API CUresult name(CUstream s, CUdeviceptr a, Type v, unsigned /*flags*/) {        \
    return write_value(s, a, v, bytes, false);                                              \
  }                                                                                         \
  SEER_CU_API CUresult name##_ptsz(CUstream s, CUdeviceptr a, Type v, unsigned /*flags*/) { \
    return write_value(s, a, v, bytes, true);                                               \
  }
#define SEER_WAIT_VALUE(name, Type)                                                         \
  SEER_CU_API CUresult name(CUstream s, CUdeviceptr a, Type /*v*/, unsigned /*flags*/) {    \
    return wait_value(s, a, false);                                                         \
  }                                                                                         \
  SEER_CU_API CUresult name##_ptsz(CUstream s, CUdeviceptr a, Type /*v*/, unsigned /*f*/) { \
    return wait_value(s, a, true);                                                          \
  }

SEER_WRITE_VALUE(cuStreamWriteValue32_v2, cuuint32_t, 4)
SEER_WRITE_VALUE(cuStreamWriteValue64_v2, cuuint64_t, 8)
SEER_WRITE_VALUE(cuStreamWriteValue32, cuuint32_t, 4)
SEER_WRITE_VALUE(cuStreamWriteValue64, cuuint64_t, 8)
SEER_WAIT_VALUE(cuStreamWaitValue32_v2, cuuint32_t)
SEER_WAIT_VALUE(cuStreamWaitValue64_v2, cuuint64_t)
SEER_WAIT_VALUE(cuStreamWaitValue32, cuuint32_t)
SEER_WAIT_VALUE(cuStreamWaitValue64, cuuint64_t)

SEER_CU_API CUresult cuStreamBatchMemOp_v2(CUstream s, unsigned n, CUstreamBatchMemOpParams* p,
                                           unsigned /*flags*/) {
  return batch(s, n, p, false);
}
SEER_CU_API CUresult cuStreamBatchMemOp_v2_ptsz(CUstream s, unsigned n, CUstreamBatchMemOpParams* p,
                                                unsigned /*flags*/) {
  return batch(s, n, p, true);
}
SEER_CU_API CUresult cuStreamBatchMemOp(CUstream s, unsigned n, CUstreamBatchMemOpParams* p,
                                        unsigned /*flags*/) {
  return batch(s, n, p, false);
}
SEER_CU_API CUresult cuStreamBatchMemOp_ptsz(CUstream s, unsigned n, CUstreamBatchMemOpParams* p,
                                             unsigned /*flags*/) {
  return batch(s, n, p, true);
}

// ---- Events ----

SEER_CU_API CUresult cuEventCreate(CUevent* out, unsigned flags) {
  SEER_CU_ENTER(other_call);
  return to_cu(ops::event_create(call.ts(), reinterpret_cast<void**>(out), flags));
}

SEER_CU_API CUresult cuEventDestroy_v2(CUevent event) {
  SEER_CU_ENTER(other_call);
  return to_cu(ops::event_destroy(event));
}

SEER_CU_API CUresult cuEventDestroy(CUevent event) { return cuEventDestroy_v2(event); }

static CUresult record(CUevent e, CUstream s, bool per_thread) {
  return with_call(&HC::event_record,
                   [&](ThreadState& ts) { return ops::event_record(ts, e, s, per_thread); });
}

SEER_CU_API CUresult cuEventRecord(CUevent e, CUstream s) {
  SEER_CU_API_SCOPE(nullptr)
  return record(e, s, false);
}
SEER_CU_API CUresult cuEventRecord_ptsz(CUevent e, CUstream s) {
  SEER_CU_API_SCOPE(nullptr)
  return record(e, s, true);
}
SEER_CU_API CUresult cuEventRecordWithFlags(CUevent e, CUstream s, unsigned flags) {
  SEER_CU_API_SCOPE(nullptr)
  return flags > 1 ? CUDA_ERROR_INVALID_VALUE : record(e, s, false);
}
SEER_CU_API CUresult cuEventRecordWithFlags_ptsz(CUevent e, CUstream s, unsigned flags) {
  SEER_CU_API_SCOPE(nullptr)
  return flags > 1 ? CUDA_ERROR_INVALID_VALUE : record(e, s, true);
}

SEER_CU_API CUresult cuEventSynchronize(CUevent e) {
  SEER_CU_ENTER(other_call);
  return to_cu(ops::event_synchronize(call.ts(), e));
}

SEER_CU_API CUresult cuEventQuery(CUevent e) {
  SEER_CU_ENTER(query);
  return to_cu(ops::event_query(call.ts(), e));
}

SEER_CU_API CUresult cuEventElapsedTime_v2(float* ms, CUevent start, CUevent end) {
  SEER_CU_ENTER(other_call);
  return to_cu(ops::event_elapsed(call.ts(), ms, start, end));
}

SEER_CU_API CUresult cuEventElapsedTime(float* ms, CUevent start, CUevent end) {
  return cuEventElapsedTime_v2(ms, start, end);
}
