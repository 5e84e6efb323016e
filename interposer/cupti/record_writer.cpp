#include "record_writer.h"

#include <cstring>

namespace seer::cupti {
namespace {

constexpr size_t align8(size_t n) { return (n + 7) & ~size_t{7}; }

}  // namespace

size_t record_size(CUpti_ActivityKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL:
      return align8(sizeof(KernelRecord));
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      return align8(sizeof(MemcpyRecord));
    case CUPTI_ACTIVITY_KIND_MEMSET:
      return align8(sizeof(MemsetRecord));
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
      return align8(sizeof(ApiRecord));
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
      return align8(sizeof(ExternalRecord));
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      return align8(sizeof(SyncRecord));
    case CUPTI_ACTIVITY_KIND_CUDA_EVENT:
      return align8(sizeof(CudaEventRecord));
    case CUPTI_ACTIVITY_KIND_GRAPH_TRACE:
      return align8(sizeof(GraphTraceRecord));
    case CUPTI_ACTIVITY_KIND_OVERHEAD:
      return align8(sizeof(OverheadRecord));
    default:
      return 0;
  }
}

void* RecordWriter::reserve(CUpti_ActivityKind kind) {
  const size_t n = record_size(kind);
  if (n == 0 || used_ + n > size_) return nullptr;
  void* p = buffer_ + used_;
  std::memset(p, 0, n);
  used_ += n;
  ++records_;
  return p;
}

bool RecordWriter::kernel(const KernelFields& f) {
  auto* k = static_cast<KernelRecord*>(reserve(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  if (!k) return false;
  k->kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k->start = f.start;
  k->end = f.end;
  k->completed = f.end;
  k->deviceId = f.device;
  k->contextId = f.context;
  k->streamId = f.stream;
  k->correlationId = f.correlation;
  k->gridX = f.grid[0];
  k->gridY = f.grid[1];
  k->gridZ = f.grid[2];
  k->blockX = f.block[0];
  k->blockY = f.block[1];
  k->blockZ = f.block[2];
  k->dynamicSharedMemory = f.dynamic_shared;
  k->name = f.name;
  k->channelType = CUPTI_CHANNEL_TYPE_COMPUTE;
  k->graphId = f.graph_id;
  k->graphNodeId = f.graph_node;
  return true;
}

bool RecordWriter::memcpy(const CopyFields& f) {
  auto* m = static_cast<MemcpyRecord*>(reserve(CUPTI_ACTIVITY_KIND_MEMCPY));
  if (!m) return false;
  m->kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m->copyKind = f.copy_kind;
  m->srcKind = f.src_kind;
  m->dstKind = f.dst_kind;
  m->bytes = f.bytes;
  m->start = f.start;
  m->end = f.end;
  m->deviceId = f.device;
  m->contextId = f.context;
  m->streamId = f.stream;
  m->correlationId = f.correlation;
  m->channelType = CUPTI_CHANNEL_TYPE_ASYNC_MEMCPY;
  return true;
}

bool RecordWriter::memset(const CopyFields& f, uint32_t value) {
  auto* m = static_cast<MemsetRecord*>(reserve(CUPTI_ACTIVITY_KIND_MEMSET));
  if (!m) return false;
  m->kind = CUPTI_ACTIVITY_KIND_MEMSET;
  m->value = value;
  m->bytes = f.bytes;
  m->start = f.start;
  m->end = f.end;
  m->deviceId = f.device;
  m->contextId = f.context;
  m->streamId = f.stream;
  m->correlationId = f.correlation;
  m->memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m->channelType = CUPTI_CHANNEL_TYPE_COMPUTE;
  return true;
}

bool RecordWriter::api(const ApiFields& f) {
  auto* a = static_cast<ApiRecord*>(reserve(f.kind));
  if (!a) return false;
  a->kind = f.kind;
  a->cbid = f.cbid;
  a->start = f.start;
  a->end = f.end;
  a->processId = f.process;
  a->threadId = f.thread;
  a->correlationId = f.correlation;
  a->returnValue = 0;
  return true;
}

bool RecordWriter::external(CUpti_ExternalCorrelationKind kind, uint64_t external_id,
                            uint32_t correlation) {
  auto* e = static_cast<ExternalRecord*>(reserve(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION));
  if (!e) return false;
  e->kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
  e->externalKind = kind;
  e->externalId = external_id;
  e->correlationId = correlation;
  return true;
}

bool RecordWriter::sync(const SyncFields& f) {
  auto* s = static_cast<SyncRecord*>(reserve(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION));
  if (!s) return false;
  s->kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  s->type = f.type;
  s->start = f.start;
  s->end = f.end;
  s->correlationId = f.correlation;
  s->contextId = f.context;
  s->streamId = f.stream;
  s->cudaEventId = f.event;
  s->cudaEventSyncId = f.event_sync_id;
  s->returnValue = 0;
  return true;
}

bool RecordWriter::cuda_event(const CudaEventFields& f) {
  auto* e = static_cast<CudaEventRecord*>(reserve(CUPTI_ACTIVITY_KIND_CUDA_EVENT));
  if (!e) return false;
  e->kind = CUPTI_ACTIVITY_KIND_CUDA_EVENT;
  e->correlationId = f.correlation;
  e->contextId = f.context;
  e->streamId = f.stream;
  e->eventId = f.event;
  e->deviceId = f.device;
  e->deviceTimestamp = f.timestamp;
  e->cudaEventSyncId = f.sync_id;
  return true;
}

bool RecordWriter::graph_trace(const GraphTraceFields& f) {
  auto* g = static_cast<GraphTraceRecord*>(reserve(CUPTI_ACTIVITY_KIND_GRAPH_TRACE));
  if (!g) return false;
  g->kind = CUPTI_ACTIVITY_KIND_GRAPH_TRACE;
  g->correlationId = f.correlation;
  g->start = f.start;
  g->end = f.end;
  g->deviceId = f.device;
  g->graphId = f.graph;
  g->contextId = f.context;
  g->streamId = f.stream;
  g->endDeviceId = f.device;
  g->endContextId = f.context;
  return true;
}

bool RecordWriter::overhead(const OverheadFields& f) {
  auto* o = static_cast<OverheadRecord*>(reserve(CUPTI_ACTIVITY_KIND_OVERHEAD));
  if (!o) return false;
  o->kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
  o->overheadKind = f.kind;
  o->objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  o->objectId.pt.processId = f.process;
  o->objectId.pt.threadId = f.thread;
  o->start = f.start;
  o->end = f.end;
  o->correlationId = f.correlation;
  return true;
}

CUptiResult next_record(uint8_t* buffer, size_t valid, CUpti_Activity** record) {
  if (!buffer || !record) return CUPTI_ERROR_INVALID_PARAMETER;
  size_t offset = 0;
  if (*record) {
    const auto* current = reinterpret_cast<uint8_t*>(*record);
    if (current < buffer || current >= buffer + valid) return CUPTI_ERROR_INVALID_PARAMETER;
    const size_t n = record_size((*record)->kind);
    if (n == 0) return CUPTI_ERROR_INVALID_KIND;
    offset = static_cast<size_t>(current - buffer) + n;
  }
  if (offset + sizeof(CUpti_Activity) > valid) {
    *record = nullptr;
    return CUPTI_ERROR_MAX_LIMIT_REACHED;
  }
  *record = reinterpret_cast<CUpti_Activity*>(buffer + offset);
  return CUPTI_SUCCESS;
}

}  // namespace seer::cupti
