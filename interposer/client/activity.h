#pragma once

// Profiling activity for the CUPTI replacement (interposer/cupti): while enabled, every kernel,
// copy, memset, library call, NCCL operation and event record gets a correlation id and is
// remembered with what the activity records need (graph replays: the graph and node ids);
// collect() asks the session for their simulated times. While synchronization tracing is on,
// stream/event/device synchronizations and stream waits are remembered with the virtual times
// the calling thread entered and left them. While a callback-API subscriber listens, the CUDA
// front-ends' entry points (ApiScope) call it at enter and exit, and the ops the call submits
// take its correlation id. Near-zero cost when off: one relaxed atomic load per call.

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda_state.h"
#include "pod_record.h"
#include "thread_state.h"

namespace seer::client::activity {

enum class OpKind : uint8_t { kKernel, kCopy, kMemset, kCollective, kEvent };

// Callback-API domains (CUpti_CallbackDomain values).
enum class Domain : uint8_t { kDriver = 1, kRuntime = 2 };

// One op submitted while activities were enabled.
struct Op {
  OpKind kind = OpKind::kKernel;
  uint8_t copy_kind = 0;  // wire::CopyKind
  bool pinned = false;    // copies: the host side is page-locked
  uint32_t correlation = 0;
  uint64_t stream = 0;
  uint64_t ordinal = 0;  // StreamObj::submitted after this op
  int device = 0;
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  uint32_t shmem = 0;
  uint64_t bytes = 0;
  uint64_t event = 0;          // kEvent: the event's id
  uint64_t event_sync_id = 0;  // kEvent: unique per record (CUPTI's cudaEventSyncId)
  std::string name;            // kernels: the mangled name; library calls: their report label
  // Collectives: the first part's wire::CollKind and ncclDataType_t; collect() adds what the
  // session's NCCL model chose (OpTime's algo, proto, channels).
  uint8_t coll = 0;
  int datatype = 0;
  std::string algo, proto;
  int channels = 0;
  uint32_t thread_id = 0;  // the submitting thread (gettid)
  int64_t api_start = 0;   // the submitting call, virtual ns
  int64_t api_end = 0;
  // The API call that submitted the op, when an ApiScope or a graph launch named it (a static
  // string: the entry point's name); nullptr: the kind's usual call. One op per call carries the
  // call's API record (api_record); the others share its correlation id.
  const char* api = nullptr;
  Domain api_domain = Domain::kRuntime;
  bool api_record = true;
  // Replayed from a CUDA graph: the executable graph's id, the node's id and the launch.
  uint32_t graph_id = 0;
  uint64_t graph_node = 0;
  uint32_t graph_launch = 0;  // index into collect_graph_launches() + 1
  // The calling thread's pushed external ids (top of each kind's stack) at submission.
  std::vector<std::pair<uint32_t, uint64_t>> external;
  int64_t start = -1;  // simulated, filled by collect()
  int64_t end = -1;
};

extern std::atomic<bool> g_enabled;

void note_submit_slow(ThreadState& ts, const StreamObj& s, const PodRecord& r);
// Called by ops::submit for every record appended to a stream.
inline void note_submit(ThreadState& ts, const StreamObj& s, const PodRecord& r) {
  if (g_enabled.load(std::memory_order_relaxed)) note_submit_slow(ts, s, r);
}

// Starts or stops remembering ops (the session notes their times while enabled).
void set_enabled(bool on);
bool enabled();

// The calling thread's external correlation stacks (cuptiActivityPushExternalCorrelationId).
void push_external(uint32_t kind, uint64_t id);
// False when that kind's stack is empty.
bool pop_external(uint32_t kind, uint64_t* id);

// CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_* values.
enum class SyncKind : uint8_t { kEvent = 1, kStreamWaitEvent = 2, kStream = 3, kContext = 4 };

// One synchronization call made while synchronization tracing was on.
struct Sync {
  static constexpr uint64_t kNone = UINT64_MAX;
  SyncKind kind = SyncKind::kContext;
  uint32_t correlation = 0;
  int device = 0;
  uint64_t stream = kNone;         // stream syncs and waits
  uint64_t event = kNone;          // event syncs and waits
  uint64_t event_sync_id = kNone;  // the event's latest record noted (Op::event_sync_id)
  uint32_t thread_id = 0;
  const char* api = nullptr;  // as Op::api
  Domain api_domain = Domain::kRuntime;
  bool api_record = true;
  int64_t start = 0;  // virtual ns: the call entered and returned
  int64_t end = 0;
  std::vector<std::pair<uint32_t, uint64_t>> external;
};

extern std::atomic<bool> g_sync_enabled;

// Notes one synchronization call, from construction to destruction, while tracing is on.
class SyncNote {
 public:
  SyncNote(ThreadState& ts, SyncKind kind, int device, uint64_t stream = Sync::kNone,
           uint64_t event = Sync::kNone)
      : ts_(ts) {
    if (g_sync_enabled.load(std::memory_order_relaxed)) begin(kind, device, stream, event);
  }
  ~SyncNote() {
    if (active_) end();
  }
  SyncNote(const SyncNote&) = delete;
  SyncNote& operator=(const SyncNote&) = delete;

 private:
  void begin(SyncKind kind, int device, uint64_t stream, uint64_t event);
  void end();
  ThreadState& ts_;
  bool active_ = false;
  Sync sync_;
};

void set_sync_enabled(bool on);
// The synchronization calls noted since the last call, forgetting them.
std::vector<Sync> collect_syncs();

struct GraphLaunch;
// Waits until every remembered op is simulated and returns them with their times (ops whose
// times the session did not report keep start = -1), forgetting them; `launches` receives the
// graph launches the ops' graph_launch index.
std::vector<Op> collect(std::vector<GraphLaunch>* launches = nullptr);

// The correlation id of the next op (ids start at 1).
uint32_t next_correlation();

// ---- CUDA graph launches ----

// One graph launch while activities were enabled (its ops carry graph_launch).
struct GraphLaunch {
  uint32_t graph_id = 0;
  uint32_t correlation = 0;
  uint64_t stream = 0;
  int device = 0;
};

// Around a graph replay (client/graph.cpp): while activities are enabled, the ops submitted
// carry the graph's id and each node's id, share one correlation id (the enclosing API call's
// when a subscriber listens) and one API record (cudaGraphLaunch); event records the replay
// makes (its lanes' fork and join) are not the program's and get no CUDA_EVENT record.
class GraphReplay {
 public:
  GraphReplay(uint32_t graph_id, uint64_t stream, int device) {
    if (g_enabled.load(std::memory_order_relaxed)) begin(graph_id, stream, device);
  }
  ~GraphReplay() {
    if (active_) end();
  }
  // The node whose records are submitted next.
  void node(uint64_t id) {
    if (active_) set_node(id);
  }
  GraphReplay(const GraphReplay&) = delete;
  GraphReplay& operator=(const GraphReplay&) = delete;

 private:
  void begin(uint32_t graph_id, uint64_t stream, int device);
  void set_node(uint64_t id);
  void end();
  bool active_ = false;
};

// ---- Callback API (cuptiSubscribe) ----

// The parameters of the driver's launch entry points as CUPTI hands them to subscribers
// (`functionParams`), in the layouts of generated_cuda_meta.h (callback_api.cpp checks them
// against the header): cuLaunchKernel_params, the same for cuLaunchKernel_ptsz and, less `extra`,
// cuLaunchCooperativeKernel[_ptsz]; cuLaunchKernelEx_params, the same for its _ptsz form.
struct LaunchKernelParams {
  void* f;  // CUfunction
  unsigned grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_mem;
  void* stream;
  void** kernel_params;
  void** extra;
};
struct LaunchKernelExParams {
  const void* config;  // const CUlaunchConfig*
  void* f;
  void** kernel_params;
  void** extra;
};

// What a callback site tells the subscriber.
struct ApiEvent {
  Domain domain = Domain::kRuntime;
  uint32_t cbid = 0;
  const char* name = nullptr;    // the entry point
  const char* symbol = nullptr;  // launches: the kernel's name
  bool exit = false;
  uint32_t correlation = 0;
  uint64_t* correlation_data = nullptr;  // the subscriber's, kept from enter to exit
  int device = 0;
  const void* params = nullptr;  // CUPTI's `<entry point>_params`, where the entry point has them
  const void* result = nullptr;  // exit: the call's return value (best effort: 0 or last error)
};
// Set by the CUPTI library: resolve answers the callback id of an entry point when the
// subscriber enabled it (else -1); deliver calls the subscriber.
struct CallbackHooks {
  int64_t (*resolve)(Domain domain, const char* name) = nullptr;
  void (*deliver)(const ApiEvent& e) = nullptr;
};
extern std::atomic<bool> g_callbacks;
void set_callback_hooks(const CallbackHooks& hooks);
void set_callbacks_enabled(bool on);

// An entry point of the runtime or driver front-end, from before its work to after it (the
// subscriber's code runs as the program's, outside Seer's accounting, like real CUPTI's
// callbacks run on the calling thread). Only the outermost scope of a thread calls back.
class ApiScope {
 public:
  ApiScope(Domain domain, const char* name, const void* func = nullptr) {
    if (g_callbacks.load(std::memory_order_relaxed)) begin(domain, name, func, nullptr);
  }
  // With the call's parameters for the subscriber (`functionParams`): `params()`, called only
  // when a subscriber listens, returns them in CUPTI's layout (generated_cuda_meta.h's
  // `<entry point>_params`), in storage that outlives the scope.
  template <typename Params>
  ApiScope(Domain domain, const char* name, const void* func, Params&& params) {
    if (g_callbacks.load(std::memory_order_relaxed)) begin(domain, name, func, params());
  }
  ~ApiScope() {
    if (active_) end();
  }
  ApiScope(const ApiScope&) = delete;
  ApiScope& operator=(const ApiScope&) = delete;

 private:
  void begin(Domain domain, const char* name, const void* func, const void* params);
  void end();
  bool active_ = false;
  ApiEvent event_;
  uint64_t data_ = 0;
  int result_ = 0;
  int error_before_ = 0;
};

}  // namespace seer::client::activity
