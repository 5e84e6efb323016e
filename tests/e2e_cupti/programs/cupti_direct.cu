// A CUDA program that uses CUPTI directly (activity and callback APIs), run under `seer run`
// with Seer's libcupti.so.13. It prints RESULT lines comparing what CUPTI reports with what the
// program measures itself (cudaEventElapsedTime) and with CUPTI's other records.

#include <cuda_runtime.h>
#include <cupti.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#define CHECK(x)                                               \
  do {                                                         \
    cudaError_t e_ = (x);                                      \
    if (e_ != cudaSuccess) {                                   \
      fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); \
      exit(1);                                                 \
    }                                                          \
  } while (0)
#define CUPTI(x)                                                         \
  do {                                                                   \
    CUptiResult r_ = (x);                                                \
    if (r_ != CUPTI_SUCCESS) {                                           \
      fprintf(stderr, "%s: CUPTI error %d\n", #x, static_cast<int>(r_)); \
      exit(1);                                                           \
    }                                                                    \
  } while (0)

__global__ void busy(float* x, int n, int rounds) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    for (int r = 0; r < rounds; ++r) x[i] = x[i] * 1.0001f + 0.5f;
  }
}

__global__ void other(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

struct Callback {
  uint32_t cbid;
  bool exit;
  uint32_t correlation;
  std::string name;
  std::string symbol;
  uint64_t data_at_exit;
};
std::vector<Callback> g_callbacks;

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                          const void* p) {
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API) return;
  const auto* d = static_cast<const CUpti_CallbackData*>(p);
  Callback c{cbid,
             d->callbackSite == CUPTI_API_EXIT,
             d->correlationId,
             d->functionName ? d->functionName : "",
             d->symbolName ? d->symbolName : "",
             0};
  // The subscriber's per-call slot: set at enter, read back at exit.
  if (!c.exit) *d->correlationData = 1000 + d->correlationId;
  if (c.exit) c.data_at_exit = *d->correlationData;
  g_callbacks.push_back(c);
}

std::vector<uint8_t*> g_buffers;
std::vector<std::pair<uint8_t*, size_t>> g_completed;

void CUPTIAPI requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = 1 << 20;
  *buffer = static_cast<uint8_t*>(aligned_alloc(8, *size));
  *max_records = 0;
}
void CUPTIAPI completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  g_completed.emplace_back(buffer, valid);
}

struct Kernel {
  std::string name;
  uint64_t start, end;
  uint32_t correlation, stream, graph_id;
  uint64_t graph_node;
};
struct Event {
  uint32_t event, stream, correlation, context;
  uint64_t timestamp, sync_id;
};

int main() {
  const int n = 1 << 22;
  float* x = nullptr;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  cudaStream_t s, s2;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  // A graph of two kernels, captured before profiling starts.
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  busy<<<n / 256, 256, 0, s>>>(x, n, 8);
  other<<<n / 256, 256, 0, s>>>(x, n);
  CHECK(cudaStreamEndCapture(s, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));

  CUpti_SubscriberHandle sub;
  CUPTI(cuptiSubscribe(&sub, on_callback, nullptr));
  if (!getenv("CUPTI_DIRECT_NO_CALLBACKS")) {
    CUPTI(cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API));
  }
  CUPTI(cuptiActivityRegisterCallbacks(requested, completed));
  for (CUpti_ActivityKind k : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_RUNTIME,
                               CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_CUDA_EVENT,
                               CUPTI_ACTIVITY_KIND_GRAPH_TRACE, CUPTI_ACTIVITY_KIND_OVERHEAD}) {
    CUPTI(cuptiActivityEnable(k));
  }

  // Profiled work: e0, a long kernel, e1 on s; s2 waits for e1; the graph twice.
  CHECK(cudaEventRecord(e0, s));
  busy<<<n / 256, 256, 0, s>>>(x, n, 64);
  CHECK(cudaEventRecord(e1, s));
  CHECK(cudaStreamWaitEvent(s2, e1, 0));
  other<<<n / 256, 256, 0, s2>>>(x, n);
  CHECK(cudaEventSynchronize(e1));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, e0, e1));
  CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaDeviceSynchronize());
  CUPTI(cuptiEnableDomain(0, sub, CUPTI_CB_DOMAIN_RUNTIME_API));
  const size_t callbacks = g_callbacks.size();
  CUPTI(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  // Disabled: no more callbacks.
  CHECK(cudaStreamSynchronize(s));
  printf("RESULT callbacks_after_disable %zu\n", g_callbacks.size() - callbacks);

  std::vector<Kernel> kernels;
  std::vector<Event> events;
  std::vector<CUpti_ActivitySynchronization2> syncs;
  std::vector<CUpti_ActivityGraphTrace2> graphs;
  std::map<uint32_t, uint32_t> api_by_correlation;  // runtime records: correlation -> cbid
  int overheads = 0;
  for (auto& [buffer, valid] : g_completed) {
    CUpti_Activity* rec = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
      switch (rec->kind) {
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
          const auto* k = reinterpret_cast<const CUpti_ActivityKernel11*>(rec);
          kernels.push_back({k->name, k->start, k->end, k->correlationId, k->streamId, k->graphId,
                             k->graphNodeId});
          break;
        }
        case CUPTI_ACTIVITY_KIND_CUDA_EVENT: {
          const auto* e = reinterpret_cast<const CUpti_ActivityCudaEvent2*>(rec);
          events.push_back({e->eventId, e->streamId, e->correlationId, e->contextId,
                            e->deviceTimestamp, e->cudaEventSyncId});
          break;
        }
        case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
          syncs.push_back(*reinterpret_cast<const CUpti_ActivitySynchronization2*>(rec));
          break;
        case CUPTI_ACTIVITY_KIND_GRAPH_TRACE:
          graphs.push_back(*reinterpret_cast<const CUpti_ActivityGraphTrace2*>(rec));
          break;
        case CUPTI_ACTIVITY_KIND_RUNTIME: {
          const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(rec);
          api_by_correlation[a->correlationId] = a->cbid;
          break;
        }
        case CUPTI_ACTIVITY_KIND_OVERHEAD:
          ++overheads;
          break;
        default:
          break;
      }
    }
  }
  printf("RESULT kernels %zu\nRESULT events %zu\nRESULT graph_traces %zu\nRESULT overheads %d\n",
         kernels.size(), events.size(), graphs.size(), overheads);

  // ---- CUDA events: e0 and e1 (the stream ids come from CUPTI itself) ----
  uint32_t s_id = 0, s2_id = 0;
  CUPTI(cuptiGetStreamId(nullptr, s, &s_id));
  CUPTI(cuptiGetStreamId(nullptr, s2, &s2_id));
  if (events.size() == 2) {
    const Event& a = events[0];
    const Event& b = events[1];
    // In integers: a double holds Unix-epoch ns only to 256 ns.
    const auto cupti_ns = static_cast<double>(static_cast<int64_t>(b.timestamp - a.timestamp));
    printf("RESULT event_elapsed_ns %.1f\nRESULT program_elapsed_ns %.1f\n", cupti_ns,
           static_cast<double>(ms) * 1e6);
    printf("RESULT events_distinct %d\n", a.event != b.event && a.sync_id != b.sync_id);
    printf("RESULT events_on_stream %d\n", a.stream == s_id && b.stream == s_id);
    // e1 completes when the long kernel (the one between them on s) ends.
    for (const Kernel& k : kernels) {
      if (k.correlation > a.correlation && k.correlation < b.correlation) {
        printf("RESULT e1_minus_kernel_end %lld\n",
               static_cast<long long>(b.timestamp) - static_cast<long long>(k.end));
        printf("RESULT e0_le_kernel_start %d\n", a.timestamp <= k.start);
        printf("RESULT kernel_start_minus_e0 %lld\n",
               static_cast<long long>(k.start) - static_cast<long long>(a.timestamp));
      }
    }
    printf("RESULT event_api_is_record %d\n",
           api_by_correlation[b.correlation] == CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020);
    // Synchronization records that name e1 link to its record.
    int event_syncs = 0, waits = 0, linked = 0;
    for (const auto& y : syncs) {
      if (y.cudaEventId != b.event) continue;
      event_syncs += y.type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE;
      waits +=
          y.type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT && y.streamId == s2_id;
      linked += y.cudaEventSyncId == b.sync_id && y.contextId == b.context &&
                y.correlationId > b.correlation;
    }
    printf("RESULT event_syncs %d\nRESULT stream_waits %d\nRESULT linked_syncs %d\n", event_syncs,
           waits, linked);
  }

  // ---- Graphs: 4 kernels from 2 launches of a 2-node graph ----
  std::vector<const Kernel*> replayed;
  for (const Kernel& k : kernels) {
    if (k.graph_id != 0) replayed.push_back(&k);
  }
  printf("RESULT graph_kernels %zu\n", replayed.size());
  if (replayed.size() == 4) {
    std::set<uint64_t> nodes;
    std::set<uint32_t> ids, correlations;
    for (const Kernel* k : replayed) {
      nodes.insert(k->graph_node);
      ids.insert(k->graph_id);
      correlations.insert(k->correlation);
    }
    printf("RESULT graph_nodes %zu\nRESULT graph_ids %zu\nRESULT graph_correlations %zu\n",
           nodes.size(), ids.size(), correlations.size());
    int spans = 0;
    for (const auto& g : graphs) {
      uint64_t lo = UINT64_MAX, hi = 0;
      for (const Kernel* k : replayed) {
        if (k->correlation != g.correlationId) continue;
        lo = k->start < lo ? k->start : lo;
        hi = k->end > hi ? k->end : hi;
      }
      spans +=
          g.start == lo && g.end == hi && g.graphId == replayed[0]->graph_id &&
          g.streamId == s_id &&
          api_by_correlation[g.correlationId] == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000;
    }
    printf("RESULT graph_spans %d\n", spans);
  }

  // ---- Callbacks: enter/exit pairs in order, correlated with the activity records ----
  int pairs = 0, bad = 0, launch_matches = 0;
  for (size_t i = 0; i < callbacks; ++i) {
    const Callback& c = g_callbacks[i];
    if (c.exit) continue;
    // The matching exit is the next callback with this correlation id: nothing nests here.
    if (i + 1 >= callbacks || !g_callbacks[i + 1].exit ||
        g_callbacks[i + 1].correlation != c.correlation || g_callbacks[i + 1].cbid != c.cbid ||
        g_callbacks[i + 1].data_at_exit != 1000 + c.correlation) {
      ++bad;
      continue;
    }
    ++pairs;
    if (c.cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000) {
      for (const Kernel& k : kernels) {
        if (k.correlation == c.correlation && k.name == c.symbol &&
            api_by_correlation[c.correlation] == c.cbid && c.name == "cudaLaunchKernel") {
          ++launch_matches;
        }
      }
    }
  }
  int seen_sync = 0, seen_graph = 0;
  for (size_t i = 0; i < callbacks; ++i) {
    seen_sync += g_callbacks[i].cbid == CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020;
    seen_graph += g_callbacks[i].cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000;
  }
  printf("RESULT callback_pairs %d\nRESULT callback_unpaired %d\nRESULT launch_callbacks %d\n",
         pairs, bad, launch_matches);
  printf("RESULT sync_callbacks %d\nRESULT graph_callbacks %d\n", seen_sync, seen_graph);
  CUPTI(cuptiUnsubscribe(sub));
  return 0;
}
