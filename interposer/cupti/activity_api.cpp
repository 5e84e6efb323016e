// The activity API Kineto drives: enable/disable, buffers, flush, external correlation ids.
// Ops are remembered by the client core (interposer/client/activity.*); at flush their simulated
// times come from the session and become records in the profiler's buffers.

#include <cupti.h>
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <bitset>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_set>

#include "activity.h"
#include "cbid_table.h"
#include "core.h"
#include "nccl_kernel.h"
#include "record_writer.h"
#include "wire.pb.h"

namespace client = seer::client;
namespace activity = seer::client::activity;
using seer::cupti::RecordWriter;

namespace {

std::mutex g_mu;
CUpti_BuffersCallbackRequestFunc g_requested = nullptr;
CUpti_BuffersCallbackCompleteFunc g_completed = nullptr;
CUpti_TimestampCallbackFunc g_timestamp = nullptr;
std::bitset<128> g_kinds;  // enabled CUpti_ActivityKind values
// Kinds enabled at some point since the last flush (Kineto disables them before it flushes).
std::bitset<128> g_flush_kinds;
uint8_t* g_buffer = nullptr;
size_t g_buffer_size = 0;

// Kinds whose records need the ops' simulated times (CUDA_EVENT records come with
// SYNCHRONIZATION too, as CUPTI's do: Kineto enables only the latter and reads both).
bool op_kind(CUpti_ActivityKind k) {
  return k == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || k == CUPTI_ACTIVITY_KIND_KERNEL ||
         k == CUPTI_ACTIVITY_KIND_MEMCPY || k == CUPTI_ACTIVITY_KIND_MEMSET ||
         k == CUPTI_ACTIVITY_KIND_CUDA_EVENT || k == CUPTI_ACTIVITY_KIND_SYNCHRONIZATION ||
         k == CUPTI_ACTIVITY_KIND_GRAPH_TRACE;
}

bool any_op_kind() {
  for (CUpti_ActivityKind k :
       {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_KERNEL,
        CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_CUDA_EVENT,
        CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_GRAPH_TRACE}) {
    if (g_kinds[k]) return true;
  }
  return false;
}

bool event_records() {
  return g_flush_kinds[CUPTI_ACTIVITY_KIND_CUDA_EVENT] ||
         g_flush_kinds[CUPTI_ACTIVITY_KIND_SYNCHRONIZATION];
}

// The API record of a call an ApiScope or a graph launch named: its kind and callback id.
bool named_api(const char* api, activity::Domain domain, CUpti_ActivityKind& kind, uint32_t& cbid) {
  if (!api) return false;
  const CUpti_CallbackDomain d = domain == activity::Domain::kDriver ? CUPTI_CB_DOMAIN_DRIVER_API
                                                                     : CUPTI_CB_DOMAIN_RUNTIME_API;
  const int64_t id = seer::cupti::callback_id(d, api);
  if (id < 0) return false;
  kind = domain == activity::Domain::kDriver ? CUPTI_ACTIVITY_KIND_DRIVER
                                             : CUPTI_ACTIVITY_KIND_RUNTIME;
  cbid = static_cast<uint32_t>(id);
  return true;
}

// Synchronization calls are noted for their own records and for their runtime-API records.
bool any_sync_kind() {
  return g_kinds[CUPTI_ACTIVITY_KIND_SYNCHRONIZATION] || g_kinds[CUPTI_ACTIVITY_KIND_RUNTIME];
}

// Kineto only flushes when CUPTI has asked for a buffer, so one is held while tracing.
void request_buffer_locked() {
  if (g_buffer || !g_requested) return;
  size_t max_records = 0;
  g_requested(&g_buffer, &g_buffer_size, &max_records);
  if (!g_buffer) g_buffer_size = 0;
}

void complete_buffer_locked(size_t valid) {
  if (!g_buffer) return;
  if (g_completed) g_completed(nullptr, 0, g_buffer, g_buffer_size, valid);
  g_buffer = nullptr;
  g_buffer_size = 0;
}

// Kernel names live as long as the process: records point at them.
const char* intern(const std::string& s) {
  static std::unordered_set<std::string> names;
  return names.insert(s).first->c_str();
}

uint8_t memcpy_kind(uint8_t wire_kind) {
  switch (wire_kind) {
    case seer::wire::COPY_H2D:
      return CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
    case seer::wire::COPY_D2H:
      return CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
    case seer::wire::COPY_D2D:
      return CUPTI_ACTIVITY_MEMCPY_KIND_DTOD;
    case seer::wire::COPY_H2H:
      return CUPTI_ACTIVITY_MEMCPY_KIND_HTOH;
    case seer::wire::COPY_PEER:
      return CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
    default:
      return CUPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN;
  }
}

// Virtual ns -> the profiler's timebase. Without a timestamp callback: the process' virtual
// CLOCK_REALTIME. With one: the callback's clock (Kineto's is the TSC, which Seer does not
// virtualize), which Kineto then maps to Unix time with a linear converter it builds from paired
// readings of both clocks; when Kineto's converter is reachable (libtorch exports it) records
// are placed through its inverse, so they land at their virtual times after Kineto's mapping.
struct Timebase {
  int64_t offset = 0;   // no converter: stamp = virtual + offset
  bool linear = false;  // converter: stamp = anchor + (virtual + realtime_base - unix0) / slope
  int64_t anchor = 0;
  int64_t unix0 = 0;
  int64_t realtime_base = 0;
  double slope = 0;
  int64_t stamp(int64_t virtual_ns) const {
    if (!linear) return virtual_ns + offset;
    const double unix_ns = static_cast<double>(virtual_ns + realtime_base - unix0);
    return anchor + static_cast<int64_t>(unix_ns / slope + (unix_ns >= 0 ? 0.5 : -0.5));
  }
};

using KinetoConverter = std::function<int64_t(int64_t)>;

Timebase timebase() {
  client::Core& core = client::Core::instance();
  const int64_t now = core.thread().clock.load(std::memory_order_relaxed);
  const int64_t realtime = core.clock_peek_ns(CLOCK_REALTIME);
  Timebase tb;
  if (!g_timestamp) {
    tb.offset = realtime - now;
    return tb;
  }
  const int64_t stamp = static_cast<int64_t>(g_timestamp());
  tb.offset = stamp - now;
  using GetConverter = KinetoConverter& (*)();
  // libtorch_cpu (Kineto's home) is usually loaded RTLD_LOCAL: look it up by soname.
  void* torch = dlopen("libtorch_cpu.so", RTLD_LAZY | RTLD_NOLOAD);
  auto get = reinterpret_cast<GetConverter>(
      dlsym(torch ? torch : RTLD_DEFAULT, "_ZN9libkineto18get_time_converterEv"));
  if (torch) dlclose(torch);
  if (!get) return tb;
  KinetoConverter& convert = get();
  if (!convert) return tb;
  constexpr int64_t kSpan = 1'000'000'000;
  const int64_t u0 = convert(stamp);
  const int64_t u1 = convert(stamp + kSpan);
  if (u1 <= u0) return tb;
  tb.linear = true;
  tb.anchor = stamp;
  tb.unix0 = u0;
  tb.realtime_base = realtime - now;
  tb.slope = static_cast<double>(u1 - u0) / static_cast<double>(kSpan);
  return tb;
}

// The records of one op, all or none.
bool write_op(RecordWriter& w, const activity::Op& op, const Timebase& tb) {
  const auto start = static_cast<uint64_t>(tb.stamp(op.start));
  const auto end = static_cast<uint64_t>(tb.stamp(op.end));
  const auto device = static_cast<uint32_t>(op.device);
  const auto stream = static_cast<uint32_t>(op.stream);
  const uint32_t context = device + 1;
  bool ok = true;
  CUpti_ActivityKind api_kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  uint32_t cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
  const bool collective = op.kind == activity::OpKind::kCollective;
  if (collective) {
    // NCCL launches through the driver's cuLaunchKernelEx when it can, as NCCL 2.28 does.
    if (g_flush_kinds[CUPTI_ACTIVITY_KIND_DRIVER]) {
      api_kind = CUPTI_ACTIVITY_KIND_DRIVER;
      cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx;
    } else {
      cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060;
    }
  }
  if (op.kind == activity::OpKind::kEvent) {
    cbid = CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020;
    if (event_records()) {
      seer::cupti::CudaEventFields f{};
      f.timestamp = end;
      f.sync_id = op.event_sync_id;
      f.correlation = op.correlation;
      f.context = context;
      f.stream = stream;
      f.event = static_cast<uint32_t>(op.event);
      f.device = device;
      ok = w.cuda_event(f);
    }
  } else if (op.kind == activity::OpKind::kKernel || collective) {
    if (g_flush_kinds[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL] ||
        g_flush_kinds[CUPTI_ACTIVITY_KIND_KERNEL]) {
      seer::cupti::KernelFields f{};
      f.name = intern(collective ? seer::cupti::nccl_kernel_name(op.coll, op.datatype, op.algo)
                                 : op.name);
      f.start = start;
      f.end = end;
      f.device = device;
      f.context = context;
      f.stream = stream;
      f.correlation = op.correlation;
      for (int i = 0; i < 3; ++i) {
        f.grid[i] = static_cast<int32_t>(op.grid[i]);
        f.block[i] = static_cast<int32_t>(op.block[i]);
      }
      if (collective) {
        f.grid[0] = op.channels > 0 ? op.channels : 1;
        f.block[0] = seer::cupti::nccl_kernel_threads(op.proto);
      }
      f.dynamic_shared = static_cast<int32_t>(op.shmem);
      f.graph_id = op.graph_id;
      f.graph_node = op.graph_node;
      ok = w.kernel(f);
    }
  } else {
    seer::cupti::CopyFields f{};
    f.start = start;
    f.end = end;
    f.bytes = op.bytes;
    f.device = device;
    f.context = context;
    f.stream = stream;
    f.correlation = op.correlation;
    f.copy_kind = memcpy_kind(op.copy_kind);
    const uint8_t host =
        op.pinned ? CUPTI_ACTIVITY_MEMORY_KIND_PINNED : CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
    const uint8_t dev = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    f.src_kind =
        op.copy_kind == seer::wire::COPY_H2D || op.copy_kind == seer::wire::COPY_H2H ? host : dev;
    f.dst_kind =
        op.copy_kind == seer::wire::COPY_D2H || op.copy_kind == seer::wire::COPY_H2H ? host : dev;
    if (op.kind == activity::OpKind::kMemset) {
      cbid = CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020;
      if (g_flush_kinds[CUPTI_ACTIVITY_KIND_MEMSET]) ok = w.memset(f, 0);
    } else {
      cbid = CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020;
      if (g_flush_kinds[CUPTI_ACTIVITY_KIND_MEMCPY]) ok = w.memcpy(f);
    }
  }
  named_api(op.api, op.api_domain, api_kind, cbid);
  if (ok && op.api_record && g_flush_kinds[api_kind]) {
    seer::cupti::ApiFields a{};
    a.kind = api_kind;
    a.cbid = cbid;
    a.process = static_cast<uint32_t>(getpid());
    a.thread = op.thread_id;
    a.correlation = op.correlation;
    a.start = static_cast<uint64_t>(tb.stamp(op.api_start));
    a.end = static_cast<uint64_t>(tb.stamp(op.api_end));
    ok = w.api(a);
  }
  if (g_flush_kinds[CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION]) {
    for (const auto& [kind, id] : op.external) {
      if (!ok) break;
      ok = w.external(static_cast<CUpti_ExternalCorrelationKind>(kind), id, op.correlation);
    }
  }
  return ok;
}

uint32_t sync_cbid(activity::SyncKind kind) {
  switch (kind) {
    case activity::SyncKind::kEvent:
      return CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020;
    case activity::SyncKind::kStreamWaitEvent:
      return CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020;
    case activity::SyncKind::kStream:
      return CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020;
    default:
      return CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020;
  }
}

uint32_t sync_id(uint64_t id) {
  return id == activity::Sync::kNone ? CUPTI_SYNCHRONIZATION_INVALID_VALUE
                                     : static_cast<uint32_t>(id);
}

// The records of one synchronization call, all or none.
bool write_sync(RecordWriter& w, const activity::Sync& s, const Timebase& tb) {
  const auto start = static_cast<uint64_t>(tb.stamp(s.start));
  const auto end = static_cast<uint64_t>(tb.stamp(s.end));
  bool ok = true;
  if (g_flush_kinds[CUPTI_ACTIVITY_KIND_SYNCHRONIZATION]) {
    seer::cupti::SyncFields f{};
    f.type = static_cast<CUpti_ActivitySynchronizationType>(s.kind);
    f.start = start;
    f.end = end;
    f.correlation = s.correlation;
    f.context = static_cast<uint32_t>(s.device) + 1;
    f.stream = sync_id(s.stream);
    f.event = sync_id(s.event);
    f.event_sync_id = s.event_sync_id == activity::Sync::kNone ? CUPTI_SYNCHRONIZATION_INVALID_VALUE
                                                               : s.event_sync_id;
    ok = w.sync(f);
  }
  CUpti_ActivityKind api_kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  uint32_t cbid = sync_cbid(s.kind);
  named_api(s.api, s.api_domain, api_kind, cbid);
  if (ok && s.api_record && g_flush_kinds[api_kind]) {
    seer::cupti::ApiFields a{};
    a.kind = api_kind;
    a.cbid = cbid;
    a.process = static_cast<uint32_t>(getpid());
    a.thread = s.thread_id;
    a.correlation = s.correlation;
    a.start = start;
    a.end = end;
    ok = w.api(a);
  }
  if (g_flush_kinds[CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION]) {
    for (const auto& [kind, id] : s.external) {
      if (!ok) break;
      ok = w.external(static_cast<CUpti_ExternalCorrelationKind>(kind), id, s.correlation);
    }
  }
  return ok;
}

// One graph launch: from its first op's start to its last op's end (none when none was timed).
bool write_graph(RecordWriter& w, const activity::GraphLaunch& g, uint32_t index,
                 const std::vector<activity::Op>& ops, const Timebase& tb) {
  int64_t start = -1;
  int64_t end = -1;
  for (const activity::Op& op : ops) {
    if (op.graph_launch != index || op.start < 0) continue;
    start = start < 0 ? op.start : std::min(start, op.start);
    end = std::max(end, op.end);
  }
  if (start < 0) return true;
  seer::cupti::GraphTraceFields f{};
  f.start = static_cast<uint64_t>(tb.stamp(start));
  f.end = static_cast<uint64_t>(tb.stamp(end));
  f.correlation = g.correlation;
  f.device = static_cast<uint32_t>(g.device);
  f.graph = g.graph_id;
  f.context = f.device + 1;
  f.stream = static_cast<uint32_t>(g.stream);
  return w.graph_trace(f);
}

// Writes items [0, n) through `write` (all records of an item or none), handing buffers back
// to the profiler as they fill; an item larger than a whole buffer is dropped.
template <class Write>
void write_items(size_t n, Write write) {
  size_t i = 0;
  while (i < n) {
    request_buffer_locked();
    if (!g_buffer) return;
    RecordWriter w(g_buffer, g_buffer_size);
    while (i < n) {
      const size_t before = w.used();
      if (!write(w, i)) {
        // Undo a partly written item by completing only what came before it.
        if (before == 0) {
          ++i;
          continue;
        }
        complete_buffer_locked(before);
        break;
      }
      ++i;
    }
    if (i == n) complete_buffer_locked(w.used());
  }
}

}  // namespace

extern "C" {

CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc requested,
                                                    CUpti_BuffersCallbackCompleteFunc completed) {
  if (!requested || !completed) return CUPTI_ERROR_INVALID_PARAMETER;
  std::lock_guard<std::mutex> lock(g_mu);
  g_requested = requested;
  g_completed = completed;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc f) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_timestamp = f;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind kind) {
  if (static_cast<size_t>(kind) >= g_kinds.size()) return CUPTI_ERROR_INVALID_KIND;
  bool start_ops = false;
  bool syncs = false;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    start_ops = op_kind(kind) && !any_op_kind();
    g_kinds[kind] = true;
    g_flush_kinds[kind] = true;
    syncs = any_sync_kind();
    request_buffer_locked();
  }
  if (start_ops) activity::set_enabled(true);
  activity::set_sync_enabled(syncs);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityDisable(CUpti_ActivityKind kind) {
  if (static_cast<size_t>(kind) >= g_kinds.size()) return CUPTI_ERROR_INVALID_KIND;
  bool stop_ops = false;
  bool syncs = false;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    const bool before = any_op_kind();
    g_kinds[kind] = false;
    stop_ops = before && !any_op_kind();
    syncs = any_sync_kind();
  }
  if (stop_ops) activity::set_enabled(false);
  activity::set_sync_enabled(syncs);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnableRuntimeApi(CUpti_CallbackId, uint8_t) {
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiActivityEnableDriverApi(CUpti_CallbackId, uint8_t) {
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiActivityEnableCudaEventDeviceTimestamps(uint8_t) { return CUPTI_SUCCESS; }

CUptiResult CUPTIAPI cuptiActivityPushExternalCorrelationId(CUpti_ExternalCorrelationKind kind,
                                                            uint64_t id) {
  activity::push_external(static_cast<uint32_t>(kind), id);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityPopExternalCorrelationId(CUpti_ExternalCorrelationKind kind,
                                                           uint64_t* last_id) {
  return activity::pop_external(static_cast<uint32_t>(kind), last_id) ? CUPTI_SUCCESS
                                                                      : CUPTI_ERROR_QUEUE_EMPTY;
}

CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t) {
  client::Core& core = client::Core::instance();
  const int64_t entered = core.thread().clock.load(std::memory_order_relaxed);
  std::vector<activity::GraphLaunch> launches;
  std::vector<activity::Op> ops = activity::collect(&launches);
  std::vector<activity::Sync> syncs = activity::collect_syncs();
  const int64_t collected = core.thread().clock.load(std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(g_mu);
  if (getenv("SEER_CUPTI_DEBUG")) {
    size_t timed = 0;
    for (const auto& op : ops) timed += op.start >= 0;
    fprintf(stderr, "[seer cupti] flush: %zu ops, %zu timed, %zu syncs, buffer %p\n", ops.size(),
            timed, syncs.size(), static_cast<void*>(g_buffer));
  }
  // CUPTI's own work costs no virtual time: a flush's overhead is the time it spent waiting for
  // the devices to finish the ops it reports.
  const bool overhead = g_flush_kinds[CUPTI_ACTIVITY_KIND_OVERHEAD] && !ops.empty();
  const bool graphs = g_flush_kinds[CUPTI_ACTIVITY_KIND_GRAPH_TRACE];
  const size_t n_graphs = graphs ? launches.size() : 0;
  const size_t n = ops.size() + syncs.size() + n_graphs + (overhead ? 1 : 0);
  const Timebase tb = n == 0 ? Timebase{} : timebase();
  write_items(n, [&](RecordWriter& w, size_t i) {
    if (i < ops.size()) {
      // An op the session reported no time for was not simulated: no records.
      return ops[i].start < 0 || write_op(w, ops[i], tb);
    }
    i -= ops.size();
    if (i < syncs.size()) return write_sync(w, syncs[i], tb);
    i -= syncs.size();
    if (i < n_graphs) {
      return write_graph(w, launches[i], static_cast<uint32_t>(i + 1), ops, tb);
    }
    seer::cupti::OverheadFields f{};
    f.kind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
    f.start = static_cast<uint64_t>(tb.stamp(entered));
    f.end = static_cast<uint64_t>(tb.stamp(collected));
    f.process = static_cast<uint32_t>(getpid());
    f.thread = static_cast<uint32_t>(gettid());
    return w.overhead(f);
  });
  // Like CUPTI's forced flush, every buffer goes back (Kineto discards them after a flush);
  // tracing on still needs one held, or Kineto would not flush again.
  complete_buffer_locked(0);
  g_flush_kinds = g_kinds;
  if (any_op_kind() || any_sync_kind()) request_buffer_locked();
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityFlush(CUcontext, uint32_t, uint32_t flag) {
  return cuptiActivityFlushAll(flag);
}

CUptiResult CUPTIAPI cuptiActivityGetNextRecord(uint8_t* buffer, size_t valid,
                                                CUpti_Activity** record) {
  return seer::cupti::next_record(buffer, valid, record);
}

CUptiResult CUPTIAPI cuptiActivityGetNumDroppedRecords(CUcontext, uint32_t, size_t* dropped) {
  if (!dropped) return CUPTI_ERROR_INVALID_PARAMETER;
  *dropped = 0;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivitySetAttribute(CUpti_ActivityAttribute, size_t* size, void* value) {
  if (!size || !value) return CUPTI_ERROR_INVALID_PARAMETER;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityGetAttribute(CUpti_ActivityAttribute, size_t* size, void* value) {
  if (!size || !value) return CUPTI_ERROR_INVALID_PARAMETER;
  std::memset(value, 0, *size);
  return CUPTI_SUCCESS;
}

}  // extern "C"
