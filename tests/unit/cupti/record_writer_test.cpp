// The CUPTI record writer: records land in the header structs' layouts, 8-byte aligned, and
// cuptiActivityGetNextRecord's walk (next_record) visits each once.

#include "record_writer.h"

#include <cupti_runtime_cbid.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <vector>

namespace seer::cupti {
namespace {

template <typename T>
T read_at(const uint8_t* record, size_t offset) {
  T value;
  std::memcpy(&value, record + offset, sizeof(T));
  return value;
}

TEST(RecordWriter, KernelFieldsAtTheHeaderOffsets) {
  alignas(8) std::vector<uint8_t> buffer(4096);
  RecordWriter w(buffer.data(), buffer.size());
  KernelFields f{};
  f.name = "_Z6kernelPf";
  f.start = 1000;
  f.end = 2500;
  f.device = 3;
  f.context = 4;
  f.stream = 7;
  f.correlation = 42;
  f.grid[0] = 128;
  f.grid[1] = 2;
  f.grid[2] = 1;
  f.block[0] = 256;
  f.block[1] = 1;
  f.block[2] = 1;
  f.dynamic_shared = 4096;
  ASSERT_TRUE(w.kernel(f));
  const uint8_t* r = buffer.data();
  EXPECT_EQ(read_at<CUpti_ActivityKind>(r, offsetof(KernelRecord, kind)),
            CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  EXPECT_EQ(read_at<uint64_t>(r, offsetof(KernelRecord, start)), 1000u);
  EXPECT_EQ(read_at<uint64_t>(r, offsetof(KernelRecord, end)), 2500u);
  EXPECT_EQ(read_at<uint32_t>(r, offsetof(KernelRecord, deviceId)), 3u);
  EXPECT_EQ(read_at<uint32_t>(r, offsetof(KernelRecord, contextId)), 4u);
  EXPECT_EQ(read_at<uint32_t>(r, offsetof(KernelRecord, streamId)), 7u);
  EXPECT_EQ(read_at<uint32_t>(r, offsetof(KernelRecord, correlationId)), 42u);
  EXPECT_EQ(read_at<int32_t>(r, offsetof(KernelRecord, gridX)), 128);
  EXPECT_EQ(read_at<int32_t>(r, offsetof(KernelRecord, gridY)), 2);
  EXPECT_EQ(read_at<int32_t>(r, offsetof(KernelRecord, blockX)), 256);
  EXPECT_EQ(read_at<int32_t>(r, offsetof(KernelRecord, dynamicSharedMemory)), 4096);
  EXPECT_EQ(read_at<const char*>(r, offsetof(KernelRecord, name)), f.name);
  EXPECT_EQ(read_at<uint32_t>(r, offsetof(KernelRecord, graphId)), 0u);
  EXPECT_EQ(w.used(), record_size(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
#if CUPTI_API_VERSION >= 130100
  // Kineto in PyTorch's cu132 build reads CUpti_ActivityKernel11.
  EXPECT_EQ(sizeof(KernelRecord), sizeof(CUpti_ActivityKernel11));
#endif
}

TEST(RecordWriter, CopyMemsetApiAndExternalRecords) {
  alignas(8) std::vector<uint8_t> buffer(4096);
  RecordWriter w(buffer.data(), buffer.size());
  CopyFields c{};
  c.start = 10;
  c.end = 20;
  c.bytes = 1 << 20;
  c.device = 1;
  c.context = 2;
  c.stream = 5;
  c.correlation = 9;
  c.copy_kind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
  ASSERT_TRUE(w.memcpy(c));
  ASSERT_TRUE(w.memset(c, 0));
  ApiFields a{CUPTI_ACTIVITY_KIND_RUNTIME,
              CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
              100,
              101,
              9,
              5,
              8};
  ASSERT_TRUE(w.api(a));
  ASSERT_TRUE(w.external(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 777, 9));
  EXPECT_EQ(w.records(), 4u);

  std::vector<CUpti_ActivityKind> kinds;
  CUpti_Activity* rec = nullptr;
  CUptiResult walk = CUPTI_SUCCESS;
  while ((walk = next_record(buffer.data(), w.used(), &rec)) == CUPTI_SUCCESS) {
    EXPECT_EQ(reinterpret_cast<uintptr_t>(rec) % 8, 0u);
    kinds.push_back(rec->kind);
    const auto* r = reinterpret_cast<const uint8_t*>(rec);
    switch (rec->kind) {
      case CUPTI_ACTIVITY_KIND_MEMCPY:
        EXPECT_EQ(read_at<uint64_t>(r, offsetof(MemcpyRecord, bytes)), 1u << 20);
        EXPECT_EQ(read_at<uint8_t>(r, offsetof(MemcpyRecord, copyKind)),
                  CUPTI_ACTIVITY_MEMCPY_KIND_DTOH);
        EXPECT_EQ(read_at<uint32_t>(r, offsetof(MemcpyRecord, correlationId)), 9u);
        EXPECT_EQ(read_at<uint32_t>(r, offsetof(MemcpyRecord, streamId)), 5u);
        break;
      case CUPTI_ACTIVITY_KIND_MEMSET:
        EXPECT_EQ(read_at<uint64_t>(r, offsetof(MemsetRecord, end)), 20u);
        EXPECT_EQ(read_at<uint32_t>(r, offsetof(MemsetRecord, correlationId)), 9u);
        break;
      case CUPTI_ACTIVITY_KIND_RUNTIME:
        EXPECT_EQ(read_at<uint32_t>(r, offsetof(ApiRecord, cbid)),
                  static_cast<uint32_t>(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020));
        EXPECT_EQ(read_at<uint32_t>(r, offsetof(ApiRecord, processId)), 100u);
        EXPECT_EQ(read_at<uint32_t>(r, offsetof(ApiRecord, threadId)), 101u);
        EXPECT_EQ(read_at<uint32_t>(r, offsetof(ApiRecord, correlationId)), 9u);
        EXPECT_EQ(read_at<uint64_t>(r, offsetof(ApiRecord, start)), 5u);
        EXPECT_EQ(read_at<uint64_t>(r, offsetof(ApiRecord, end)), 8u);
        break;
      case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
        EXPECT_EQ(read_at<uint64_t>(r, offsetof(ExternalRecord, externalId)), 777u);
        EXPECT_EQ(read_at<uint32_t>(r, offsetof(ExternalRecord, correlationId)), 9u);
        EXPECT_EQ(read_at<CUpti_ExternalCorrelationKind>(r, offsetof(ExternalRecord, externalKind)),
                  CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0);
        break;
      default:
        ADD_FAILURE() << "unexpected kind " << rec->kind;
    }
  }
  EXPECT_EQ(kinds, (std::vector<CUpti_ActivityKind>{
                       CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET,
                       CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION}));
  EXPECT_EQ(walk, CUPTI_ERROR_MAX_LIMIT_REACHED);
  EXPECT_EQ(rec, nullptr);
}

TEST(RecordWriter, SynchronizationRecordKinetoCanRead) {
  alignas(8) std::vector<uint8_t> buffer(4096);
  RecordWriter w(buffer.data(), buffer.size());
  SyncFields f{CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT, 300, 400, 11, 2, 6, 19, 23};
  ASSERT_TRUE(w.sync(f));
  ApiFields a{CUPTI_ACTIVITY_KIND_RUNTIME,
              CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020,
              1,
              2,
              11,
              300,
              400};
  ASSERT_TRUE(w.api(a));
  EXPECT_EQ(record_size(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION),
            sizeof(CUpti_ActivitySynchronization2));
  CUpti_Activity* rec = nullptr;
  ASSERT_EQ(next_record(buffer.data(), w.used(), &rec), CUPTI_SUCCESS);
  ASSERT_EQ(rec->kind, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
  // Kineto casts to CUpti_ActivitySynchronization, the prefix of this layout: its offsets.
  const auto* r = reinterpret_cast<const uint8_t*>(rec);
  EXPECT_EQ(read_at<uint32_t>(r, 4), CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT);
  EXPECT_EQ(read_at<uint64_t>(r, 8), 300u);
  EXPECT_EQ(read_at<uint64_t>(r, 16), 400u);
  EXPECT_EQ(read_at<uint32_t>(r, 24), 11u);  // correlationId
  EXPECT_EQ(read_at<uint32_t>(r, 28), 2u);   // contextId
  EXPECT_EQ(read_at<uint32_t>(r, 32), 6u);   // streamId
  EXPECT_EQ(read_at<uint32_t>(r, 36), 19u);  // cudaEventId
  EXPECT_EQ(read_at<uint64_t>(r, offsetof(SyncRecord, cudaEventSyncId)), 23u);
  ASSERT_EQ(next_record(buffer.data(), w.used(), &rec), CUPTI_SUCCESS);
  EXPECT_EQ(rec->kind, CUPTI_ACTIVITY_KIND_RUNTIME);
  EXPECT_EQ(next_record(buffer.data(), w.used(), &rec), CUPTI_ERROR_MAX_LIMIT_REACHED);
}

TEST(RecordWriter, FullBufferTakesNothing) {
  alignas(8) std::vector<uint8_t> buffer(record_size(CUPTI_ACTIVITY_KIND_RUNTIME) + 8);
  RecordWriter w(buffer.data(), buffer.size());
  ApiFields a{CUPTI_ACTIVITY_KIND_RUNTIME, 211, 1, 1, 1, 0, 1};
  EXPECT_TRUE(w.api(a));
  EXPECT_FALSE(w.api(a));
  EXPECT_EQ(w.records(), 1u);
  CUpti_Activity* rec = nullptr;
  EXPECT_EQ(next_record(buffer.data(), 0, &rec), CUPTI_ERROR_MAX_LIMIT_REACHED);
}

TEST(RecordWriter, EventGraphAndOverheadRecords) {
  alignas(8) std::vector<uint8_t> buffer(4096);
  RecordWriter w(buffer.data(), buffer.size());
  CudaEventFields e{};
  e.timestamp = 5000;
  e.sync_id = 77;
  e.correlation = 9;
  e.context = 2;
  e.stream = 13;
  e.event = 4;
  e.device = 1;
  ASSERT_TRUE(w.cuda_event(e));
  GraphTraceFields g{};
  g.start = 100;
  g.end = 900;
  g.correlation = 10;
  g.device = 1;
  g.graph = 3;
  g.context = 2;
  g.stream = 13;
  ASSERT_TRUE(w.graph_trace(g));
  OverheadFields o{};
  o.kind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
  o.start = 10;
  o.end = 20;
  o.process = 7;
  o.thread = 8;
  ASSERT_TRUE(w.overhead(o));
  EXPECT_EQ(w.records(), 3u);
  CUpti_Activity* rec = nullptr;
  ASSERT_EQ(next_record(buffer.data(), w.used(), &rec), CUPTI_SUCCESS);
  ASSERT_EQ(rec->kind, CUPTI_ACTIVITY_KIND_CUDA_EVENT);
  const auto* ce = reinterpret_cast<const CUpti_ActivityCudaEvent2*>(rec);
  EXPECT_EQ(ce->deviceTimestamp, 5000u);
  EXPECT_EQ(ce->cudaEventSyncId, 77u);
  EXPECT_EQ(ce->correlationId, 9u);
  EXPECT_EQ(ce->contextId, 2u);
  EXPECT_EQ(ce->streamId, 13u);
  EXPECT_EQ(ce->eventId, 4u);
  EXPECT_EQ(ce->deviceId, 1u);
  ASSERT_EQ(next_record(buffer.data(), w.used(), &rec), CUPTI_SUCCESS);
  ASSERT_EQ(rec->kind, CUPTI_ACTIVITY_KIND_GRAPH_TRACE);
  const auto* gt = reinterpret_cast<const CUpti_ActivityGraphTrace2*>(rec);
  EXPECT_EQ(gt->start, 100u);
  EXPECT_EQ(gt->end, 900u);
  EXPECT_EQ(gt->graphId, 3u);
  EXPECT_EQ(gt->streamId, 13u);
  EXPECT_EQ(gt->correlationId, 10u);
  ASSERT_EQ(next_record(buffer.data(), w.used(), &rec), CUPTI_SUCCESS);
  ASSERT_EQ(rec->kind, CUPTI_ACTIVITY_KIND_OVERHEAD);
  const auto* ov = reinterpret_cast<const CUpti_ActivityOverhead3*>(rec);
  EXPECT_EQ(ov->overheadKind, CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH);
  EXPECT_EQ(ov->objectKind, CUPTI_ACTIVITY_OBJECT_THREAD);
  EXPECT_EQ(ov->objectId.pt.threadId, 8u);
  EXPECT_EQ(ov->end - ov->start, 10u);
  EXPECT_EQ(next_record(buffer.data(), w.used(), &rec), CUPTI_ERROR_MAX_LIMIT_REACHED);
}

}  // namespace
}  // namespace seer::cupti
