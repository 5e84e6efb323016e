#pragma once

// Writes CUPTI activity records, in the layouts of the CUPTI 13 headers, into buffers the
// profiler handed over (bufferRequested), and walks them (cuptiActivityGetNextRecord).

#include <cupti_activity.h>

#include <cstddef>
#include <cstdint>

namespace seer::cupti {

// The kernel record layout Kineto reads for CUDA >= 13.1.
#if CUPTI_API_VERSION >= 130100
using KernelRecord = CUpti_ActivityKernel11;
#else
using KernelRecord = CUpti_ActivityKernel10;
#endif
using MemcpyRecord = CUpti_ActivityMemcpy6;
using MemsetRecord = CUpti_ActivityMemset4;
using ApiRecord = CUpti_ActivityAPI;
using ExternalRecord = CUpti_ActivityExternalCorrelation;
// Kineto reads the CUpti_ActivitySynchronization prefix; CUPTI 13 writes this longer layout.
using SyncRecord = CUpti_ActivitySynchronization2;
using CudaEventRecord = CUpti_ActivityCudaEvent2;
using GraphTraceRecord = CUpti_ActivityGraphTrace2;
using OverheadRecord = CUpti_ActivityOverhead3;

// Records sit at 8-byte aligned offsets, each taking its struct's size rounded up to 8.
size_t record_size(CUpti_ActivityKind kind);

struct KernelFields {
  const char* name;  // must outlive the buffer
  uint64_t start, end;
  uint32_t device, context, stream, correlation;
  int32_t grid[3], block[3];
  int32_t dynamic_shared;
  uint32_t graph_id;  // 0 unless replayed from a graph
  uint64_t graph_node;
};
struct CopyFields {
  uint64_t start, end, bytes;
  uint32_t device, context, stream, correlation;
  uint8_t copy_kind;           // CUpti_ActivityMemcpyKind
  uint8_t src_kind, dst_kind;  // CUpti_ActivityMemoryKind
};
struct ApiFields {
  CUpti_ActivityKind kind;  // RUNTIME or DRIVER
  uint32_t cbid, process, thread, correlation;
  uint64_t start, end;
};

struct SyncFields {
  CUpti_ActivitySynchronizationType type;
  uint64_t start, end;
  // stream and event: CUPTI_SYNCHRONIZATION_INVALID_VALUE where the call has none.
  uint32_t correlation, context, stream, event;
  uint64_t event_sync_id;  // CUPTI_SYNCHRONIZATION_INVALID_VALUE unless an event sync or wait
};
struct CudaEventFields {
  uint64_t timestamp;  // when the record completed on the device
  uint64_t sync_id;
  uint32_t correlation, context, stream, event, device;
};
struct GraphTraceFields {
  uint64_t start, end;
  uint32_t correlation, device, graph, context, stream;
};
struct OverheadFields {
  CUpti_ActivityOverheadKind kind;
  uint64_t start, end;
  uint32_t process, thread, correlation;
};

// Appends records to one buffer; each returns false (writing nothing) when it would not fit.
class RecordWriter {
 public:
  RecordWriter(uint8_t* buffer, size_t size) : buffer_(buffer), size_(size) {}
  bool kernel(const KernelFields& f);
  bool memcpy(const CopyFields& f);
  bool memset(const CopyFields& f, uint32_t value);
  bool api(const ApiFields& f);
  bool external(CUpti_ExternalCorrelationKind kind, uint64_t external_id, uint32_t correlation);
  bool sync(const SyncFields& f);
  bool cuda_event(const CudaEventFields& f);
  bool graph_trace(const GraphTraceFields& f);
  bool overhead(const OverheadFields& f);
  size_t used() const { return used_; }
  size_t records() const { return records_; }

 private:
  void* reserve(CUpti_ActivityKind kind);
  uint8_t* buffer_;
  size_t size_;
  size_t used_ = 0;
  size_t records_ = 0;
};

// cuptiActivityGetNextRecord over buffers written by RecordWriter.
CUptiResult next_record(uint8_t* buffer, size_t valid, CUpti_Activity** record);

}  // namespace seer::cupti
