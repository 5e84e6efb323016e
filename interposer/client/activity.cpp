#include "activity.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <map>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "ops.h"
#include "wire.pb.h"

namespace seer::client::activity {

std::atomic<bool> g_enabled{false};
std::atomic<bool> g_sync_enabled{false};
std::atomic<bool> g_callbacks{false};

namespace {

// Never destroyed: framework threads (a watchdog polling events) still call CUDA while the
// process runs its static destructors.
std::mutex& g_mu = *new std::mutex();
std::vector<Op>& g_ops = *new std::vector<Op>();  // guarded by g_mu
std::vector<int>& g_devices =
    *new std::vector<int>();  // devices with remembered ops, guarded by g_mu
std::vector<Sync>& g_syncs = *new std::vector<Sync>();  // guarded by g_mu
std::atomic<uint32_t> g_next_correlation{1};
std::atomic<uint64_t> g_next_event_sync{1};
// Per event id, the sync id of its latest record noted (guarded by g_mu).
std::unordered_map<uint64_t, uint64_t>& g_event_sync =
    *new std::unordered_map<uint64_t, uint64_t>();
// Graph launches since the last collect(); the generation counts collects (guarded by g_mu).
std::vector<GraphLaunch>& g_graph_launches = *new std::vector<GraphLaunch>();
uint64_t g_graph_generation = 0;

std::atomic<int64_t (*)(Domain, const char*)> g_resolve{nullptr};
std::atomic<void (*)(const ApiEvent&)> g_deliver{nullptr};

// The entry point an ApiScope is in (outermost scope only), when its callback is enabled.
struct CurrentApi {
  bool active = false;
  uint32_t correlation = 0;
  const char* name = nullptr;
  Domain domain = Domain::kRuntime;
  bool claimed = false;  // an op or sync of the call carries its API record
};
thread_local CurrentApi tl_api;
thread_local int tl_scope_depth = 0;

// The graph replay in progress on this thread.
struct CurrentGraph {
  bool active = false;
  GraphLaunch launch;
  const char* api = nullptr;
  Domain domain = Domain::kRuntime;
  uint64_t node = 0;
  bool claimed = false;
  uint64_t generation = 0;
  uint32_t index = 0;  // in g_graph_launches + 1, for `generation`
};
thread_local CurrentGraph tl_graph;

// Per thread and kind (CUpti_ExternalCorrelationKind), the pushed external ids.
thread_local std::map<uint32_t, std::vector<uint64_t>> tl_external;
thread_local uint32_t tl_tid = 0;

uint32_t thread_id() {
  if (tl_tid == 0) tl_tid = static_cast<uint32_t>(syscall(SYS_gettid));
  return tl_tid;
}

std::vector<std::pair<uint32_t, uint64_t>> external_ids() {
  std::vector<std::pair<uint32_t, uint64_t>> out;
  for (const auto& [kind, stack] : tl_external) {
    if (!stack.empty()) out.emplace_back(kind, stack.back());
  }
  return out;
}

std::string library_label(const wire::LibraryCall& l) {
  static const char* const kTypes[] = {"f64", "f32", "tf32", "f16", "bf16", "f8", "i8"};
  const int d = l.dtype();
  return l.api() + " [" + (d >= 0 && d < 7 ? kTypes[d] : "?") + "]";
}

void ask_session(bool track, std::vector<wire::OpTime>* times) {
  Core& core = Core::instance();
  if (!core.ensure_joined()) return;
  ApiCall call(core, 0);
  wire::Request r;
  r.mutable_activity()->set_track(track);
  const wire::Answer a = core.request(call.ts(), r);
  if (times) times->assign(a.op_times().begin(), a.op_times().end());
}

// The correlation id, API call and API-record ownership of an op or sync being noted.
void bind_call(uint32_t& correlation, const char*& api, Domain& domain, bool& api_record) {
  if (tl_graph.active) {
    correlation = tl_graph.launch.correlation;
    api = tl_graph.api;
    domain = tl_graph.domain;
    api_record = !tl_graph.claimed;
    tl_graph.claimed = true;
  } else if (tl_api.active) {
    correlation = tl_api.correlation;
    api = tl_api.name;
    domain = tl_api.domain;
    api_record = !tl_api.claimed;
    tl_api.claimed = true;
  } else {
    correlation = next_correlation();
  }
}

}  // namespace

uint32_t next_correlation() { return g_next_correlation.fetch_add(1, std::memory_order_relaxed); }

void note_submit_slow(ThreadState& ts, const StreamObj& s, const PodRecord& r) {
  Op op;
  switch (r.type) {
    case PodRecord::kLaunch: {
      op.kind = OpKind::kKernel;
      const char* name = CudaState::instance().function_name(reinterpret_cast<const void*>(r.a));
      op.name = name ? name : "<unknown kernel>";
      for (int i = 0; i < 3; ++i) {
        op.grid[i] = r.dims[i];
        op.block[i] = r.dims[3 + i];
      }
      op.shmem = r.dims[6];
      break;
    }
    case PodRecord::kLibrary:
      op.kind = OpKind::kKernel;
      op.name = r.library ? library_label(*r.library) : "<library call>";
      break;
    case PodRecord::kCopy:
      op.kind = r.copy_kind == wire::COPY_MEMSET ? OpKind::kMemset : OpKind::kCopy;
      op.copy_kind = r.copy_kind;
      op.pinned = r.flag_a;
      op.bytes = r.b;
      break;
    case PodRecord::kCollective:
      op.kind = OpKind::kCollective;
      if (r.collective && r.collective->parts_size() > 0) {
        op.coll = static_cast<uint8_t>(r.collective->parts(0).kind());
        op.datatype = r.collective->parts(0).datatype();
      }
      break;
    case PodRecord::kEventRecord:
      if (tl_graph.active) return;  // the replay's own fork/join events
      op.kind = OpKind::kEvent;
      op.event = r.a;
      op.event_sync_id = g_next_event_sync.fetch_add(1, std::memory_order_relaxed);
      break;
    default:
      return;
  }
  bind_call(op.correlation, op.api, op.api_domain, op.api_record);
  op.stream = s.id;
  op.ordinal = s.submitted;
  op.device = s.device;
  op.thread_id = thread_id();
  op.api_start = ts.clock.load(std::memory_order_relaxed);
  op.api_end = op.api_start + Core::instance().costs().launch();
  op.external = external_ids();
  std::lock_guard<std::mutex> lock(g_mu);
  if (tl_graph.active) {
    // A flush since the replay began handed its launch over: note it again for the next one.
    if (tl_graph.generation != g_graph_generation) {
      g_graph_launches.push_back(tl_graph.launch);
      tl_graph.generation = g_graph_generation;
      tl_graph.index = static_cast<uint32_t>(g_graph_launches.size());
    }
    op.graph_id = tl_graph.launch.graph_id;
    op.graph_node = tl_graph.node;
    op.graph_launch = tl_graph.index;
  }
  if (op.kind == OpKind::kEvent) g_event_sync[op.event] = op.event_sync_id;
  bool known = false;
  for (int d : g_devices) known = known || d == op.device;
  if (!known) g_devices.push_back(op.device);
  g_ops.push_back(std::move(op));
}

void set_enabled(bool on) {
  if (on == g_enabled.load()) return;
  // The session starts noting this process' ops before the first one is remembered.
  if (on) ask_session(true, nullptr);
  g_enabled.store(on);
}

bool enabled() { return g_enabled.load(); }

void push_external(uint32_t kind, uint64_t id) { tl_external[kind].push_back(id); }

bool pop_external(uint32_t kind, uint64_t* id) {
  auto it = tl_external.find(kind);
  if (it == tl_external.end() || it->second.empty()) return false;
  if (id) *id = it->second.back();
  it->second.pop_back();
  return true;
}

std::vector<Op> collect(std::vector<GraphLaunch>* launches) {
  std::vector<Op> ops;
  std::vector<int> devices;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    ops.swap(g_ops);
    devices.swap(g_devices);
    if (launches) launches->clear();
    if (launches) launches->swap(g_graph_launches);
    g_graph_launches.clear();
    ++g_graph_generation;
  }
  if (ops.empty() && g_enabled.load()) return ops;
  Core& core = Core::instance();
  if (!core.ensure_joined()) return ops;
  {
    // Every remembered op has been simulated once its device is idle.
    ApiCall call(core, 0);
    for (int d : devices) ops::sync_device(call.ts(), d);
  }
  std::vector<wire::OpTime> times;
  ask_session(g_enabled.load(), &times);
  std::map<std::pair<uint64_t, uint64_t>, const wire::OpTime*> by_op;
  for (const wire::OpTime& t : times) by_op[{t.stream(), t.ordinal()}] = &t;
  for (Op& op : ops) {
    auto it = by_op.find({op.stream, op.ordinal});
    if (it == by_op.end()) continue;
    op.start = it->second->start();
    op.end = it->second->end();
    op.algo = it->second->algo();
    op.proto = it->second->proto();
    op.channels = it->second->channels();
  }
  return ops;
}

void SyncNote::begin(SyncKind kind, int device, uint64_t stream, uint64_t event) {
  active_ = true;
  sync_.kind = kind;
  bind_call(sync_.correlation, sync_.api, sync_.api_domain, sync_.api_record);
  sync_.device = device;
  sync_.stream = stream;
  sync_.event = event;
  if (event != Sync::kNone) {
    std::lock_guard<std::mutex> lock(g_mu);
    auto it = g_event_sync.find(event);
    if (it != g_event_sync.end()) sync_.event_sync_id = it->second;
  }
  sync_.thread_id = thread_id();
  sync_.start = ts_.clock.load(std::memory_order_relaxed);
  sync_.external = external_ids();
}

void SyncNote::end() {
  sync_.end = ts_.clock.load(std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(g_mu);
  g_syncs.push_back(std::move(sync_));
}

void set_sync_enabled(bool on) { g_sync_enabled.store(on); }

void GraphReplay::begin(uint32_t graph_id, uint64_t stream, int device) {
  if (tl_graph.active) return;  // a graph launched from a host node of another: the outer one
  active_ = true;
  CurrentGraph& g = tl_graph;
  g = CurrentGraph{};
  g.active = true;
  g.launch.graph_id = graph_id;
  g.launch.stream = stream;
  g.launch.device = device;
  if (tl_api.active) {
    g.launch.correlation = tl_api.correlation;
    g.api = tl_api.name;
    g.domain = tl_api.domain;
    g.claimed = tl_api.claimed;
    tl_api.claimed = true;
  } else {
    g.launch.correlation = next_correlation();
    g.api = "cudaGraphLaunch";
  }
  std::lock_guard<std::mutex> lock(g_mu);
  g_graph_launches.push_back(g.launch);
  g.generation = g_graph_generation;
  g.index = static_cast<uint32_t>(g_graph_launches.size());
}

void GraphReplay::set_node(uint64_t id) { tl_graph.node = id; }

void GraphReplay::end() { tl_graph.active = false; }

void set_callback_hooks(const CallbackHooks& hooks) {
  g_resolve.store(hooks.resolve);
  g_deliver.store(hooks.deliver);
}

void set_callbacks_enabled(bool on) { g_callbacks.store(on); }

void ApiScope::begin(Domain domain, const char* name, const void* func, const void* params) {
  active_ = true;
  if (tl_scope_depth++ > 0) return;  // inside another entry point (or a callback's own calls)
  auto resolve = g_resolve.load();
  const int64_t cbid = resolve ? resolve(domain, name) : -1;
  if (cbid < 0) return;
  ThreadState& ts = Core::instance().thread();
  tl_api = CurrentApi{true, next_correlation(), name, domain, false};
  event_.domain = domain;
  event_.cbid = static_cast<uint32_t>(cbid);
  event_.name = name;
  event_.symbol = func ? CudaState::instance().function_name(func) : nullptr;
  event_.correlation = tl_api.correlation;
  event_.correlation_data = &data_;
  event_.params = params;
  event_.device = ts.device;
  event_.result = &result_;
  error_before_ = ts.last_error;
  if (auto deliver = g_deliver.load()) deliver(event_);
}

void ApiScope::end() {
  --tl_scope_depth;
  if (!event_.name || tl_scope_depth > 0) return;
  tl_api.active = false;
  const int error = Core::instance().thread().last_error;
  result_ = event_.domain == Domain::kRuntime && error != error_before_ ? error : 0;
  event_.exit = true;
  if (auto deliver = g_deliver.load()) deliver(event_);
}

std::vector<Sync> collect_syncs() {
  std::vector<Sync> out;
  std::lock_guard<std::mutex> lock(g_mu);
  out.swap(g_syncs);
  return out;
}

}  // namespace seer::client::activity
