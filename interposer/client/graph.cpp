// CUDA graphs: capture state, graphs, executable graphs and their replay (GRAPHS.md).

#include "graph.h"

#include <algorithm>
#include <atomic>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "activity.h"
#include "ops.h"
#include "user_object_destructors.h"

namespace seer::client::graph {

enum class Kind { kRecord, kHost, kEmpty };

// Ids of nodes and executable graphs, as CUPTI's kernel and graph-trace records carry them.
std::atomic<uint64_t> g_next_node_id{1};
std::atomic<uint32_t> g_next_exec_id{1};

struct Node {
  Kind kind = Kind::kRecord;
  PodRecord rec;                 // the op as first submitted; library/collective owned
  std::function<void()> effect;  // byte effects, run at each replay
  void (*fn)(void*) = nullptr;   // host node
  void* data = nullptr;
  std::vector<Node*> deps;
  int lane = 0;  // the capturing stream: 0 the origin, then in the order streams joined
  uint64_t id = g_next_node_id.fetch_add(1, std::memory_order_relaxed);
  Node() = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  ~Node() {
    delete rec.collective;
    delete rec.library;
  }
};

struct UserObject {
  void* ptr = nullptr;
  void (*destroy)(void*) = nullptr;
  std::atomic<int64_t> refs{0};
};

struct Graph {
  std::vector<std::shared_ptr<Node>> nodes;
  std::unordered_map<UserObject*, unsigned> user_refs;
};

// How a launch replays the nodes: lane 0 on the launch stream, the other lanes on streams of
// the executable graph's own, with an event after each node another lane depends on.
struct Plan {
  int lanes = 1;
  std::vector<std::vector<int>> cross_deps;  // per node: nodes on other lanes it waits for
  std::vector<bool> recorded;                // per node: another lane depends on it
};

struct Exec {
  uint32_t id = g_next_exec_id.fetch_add(1, std::memory_order_relaxed);
  std::vector<std::shared_ptr<Node>> nodes;
  std::vector<std::pair<UserObject*, unsigned>> user_refs;
  Plan plan;
  // Created at the first multi-lane launch (guarded by the graph lock).
  std::vector<StreamObj*> lane_streams;  // lanes 1..
  std::vector<EventObj*> node_events;    // per node (when recorded)
  std::vector<EventObj*> lane_events;    // per lane: fork (lane 0) and join (lanes 1..)
};

namespace {

struct Capture {
  uint64_t id = 0;
  int mode = cudaStreamCaptureModeGlobal;
  uint32_t thread = 0;
  Graph* graph = nullptr;
  bool own_graph = true;  // created by the capture (not cudaStreamBeginCaptureToGraph)
  StreamObj* origin = nullptr;
  bool invalid = false;
  // Streams in the capture and the nodes their next op depends on.
  std::unordered_map<StreamObj*, std::vector<Node*>> deps;
  std::unordered_map<StreamObj*, int> lanes;
};

struct CapturedEvent {
  Capture* capture = nullptr;
  std::vector<Node*> deps;
};

// Never destroyed: framework threads (a watchdog polling events) still call CUDA while the
// process runs its static destructors.
std::mutex& g_mu = *new std::mutex();
std::unordered_map<const StreamObj*, Capture*>& g_by_stream =
    *new std::unordered_map<const StreamObj*, Capture*>();
std::unordered_map<const EventObj*, CapturedEvent>& g_events =
    *new std::unordered_map<const EventObj*, CapturedEvent>();
std::unordered_set<const Graph*>& g_graphs = *new std::unordered_set<const Graph*>();
std::unordered_set<const Exec*>& g_execs = *new std::unordered_set<const Exec*>();
std::unordered_set<const UserObject*>& g_user_objects =
    *new std::unordered_set<const UserObject*>();
uint64_t g_next_capture_id = 1;
thread_local int t_mode = cudaStreamCaptureModeGlobal;

uint32_t this_thread() { return Core::instance().thread().index; }

Capture* capture_of(const StreamObj* s) {
  auto it = g_by_stream.find(s);
  return it == g_by_stream.end() ? nullptr : it->second;
}

void add_node(Capture* c, StreamObj* s, std::shared_ptr<Node> n) {
  std::vector<Node*>& d = c->deps[s];
  n->deps = d;
  n->lane = c->lanes.emplace(s, static_cast<int>(c->lanes.size())).first->second;
  d.assign(1, n.get());
  c->graph->nodes.push_back(std::move(n));
}

void release_refs(UserObject* o, unsigned count) {
  if (o->refs.fetch_sub(count) == static_cast<int64_t>(count)) {
    defer_user_object_destructor(o->destroy, o->ptr);
    delete o;
  }
}

// Ends `c` (the lock held): its streams and events leave the capture.
void finish(Capture* c) {
  for (auto it = g_by_stream.begin(); it != g_by_stream.end();) {
    it = it->second == c ? g_by_stream.erase(it) : std::next(it);
  }
  for (auto it = g_events.begin(); it != g_events.end();) {
    it = it->second.capture == c ? g_events.erase(it) : std::next(it);
  }
}

std::vector<Capture*> live_captures() {
  std::vector<Capture*> out;
  for (auto& [s, c] : g_by_stream) {
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  }
  return out;
}

// True when every stream that joined `c` has been joined back into its origin.
bool joined(const Capture* c) {
  std::unordered_set<const Node*> reach;
  std::vector<const Node*> todo;
  auto origin = c->deps.find(c->origin);
  if (origin != c->deps.end()) todo.assign(origin->second.begin(), origin->second.end());
  while (!todo.empty()) {
    const Node* n = todo.back();
    todo.pop_back();
    if (!reach.insert(n).second) continue;
    todo.insert(todo.end(), n->deps.begin(), n->deps.end());
  }
  for (auto& [s, d] : c->deps) {
    for (const Node* n : d) {
      if (!reach.count(n)) return false;
    }
  }
  return true;
}

PodRecord clone_for(const Node& n, uint64_t stream) {
  PodRecord r = n.rec;
  switch (r.type) {
    case PodRecord::kLaunch:
    case PodRecord::kEventRecord:
      r.b = stream;
      break;
    case PodRecord::kCopy:
    case PodRecord::kStreamWaitEvent:
      r.a = stream;
      break;
    case PodRecord::kLibrary:
      r.library = new wire::LibraryCall(*n.rec.library);
      r.library->set_stream(stream);
      break;
    case PodRecord::kCollective:
      r.collective = new wire::Collective(*n.rec.collective);
      r.collective->set_stream(stream);
      break;
    default:
      break;
  }
  return r;
}

Plan make_plan(const std::vector<std::shared_ptr<Node>>& nodes) {
  Plan p;
  std::unordered_map<const Node*, int> index;
  for (size_t i = 0; i < nodes.size(); ++i) {
    index[nodes[i].get()] = static_cast<int>(i);
    p.lanes = std::max(p.lanes, nodes[i]->lane + 1);
  }
  p.cross_deps.resize(nodes.size());
  p.recorded.assign(nodes.size(), false);
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const Node* d : nodes[i]->deps) {
      auto it = index.find(d);
      if (it == index.end() || d->lane == nodes[i]->lane) continue;
      p.cross_deps[i].push_back(it->second);
      p.recorded[it->second] = true;
    }
  }
  return p;
}

// The streams and events of a multi-lane replay, created on first use.
void prepare_lanes(ThreadState& ts, Exec* x, int device) {
  std::lock_guard lock(g_mu);
  CudaState& cs = CudaState::instance();
  if (!x->lane_streams.empty() || x->plan.lanes < 2) return;
  for (int l = 1; l < x->plan.lanes; ++l) {
    x->lane_streams.push_back(cs.create_stream(ts, device, cudaStreamNonBlocking, 0));
  }
  x->node_events.assign(x->nodes.size(), nullptr);
  for (size_t i = 0; i < x->nodes.size(); ++i) {
    if (x->plan.recorded[i]) x->node_events[i] = cs.create_event(device, cudaEventDisableTiming);
  }
  for (int l = 0; l < x->plan.lanes; ++l) {
    x->lane_events.push_back(cs.create_event(device, cudaEventDisableTiming));
  }
}

void record_on(ThreadState& ts, StreamObj* s, const EventObj* e) {
  PodRecord r;
  r.type = PodRecord::kEventRecord;
  r.a = e->id;
  r.b = s->id;
  ops::submit(ts, s, r);
}

void wait_on(ThreadState& ts, StreamObj* s, const EventObj* e) {
  PodRecord r;
  r.type = PodRecord::kStreamWaitEvent;
  r.a = s->id;
  r.b = e->id;
  ops::submit(ts, s, r);
}

}  // namespace

// ---- The submission path ----

cudaError_t submit(ThreadState& ts, StreamObj* s, PodRecord& r,
                   const std::function<void()>& effect) {
  {
    std::lock_guard lock(g_mu);
    if (Capture* c = capture_of(s)) {
      if (c->invalid) {
        delete r.collective;
        delete r.library;
        return cudaErrorStreamCaptureInvalidated;
      }
      auto n = std::make_shared<Node>();
      n->rec = r;
      n->effect = effect;
      add_node(c, s, std::move(n));
      return cudaSuccess;
    }
    // Work on the legacy stream waits for every blocking stream of its device.
    if (s->legacy && !g_by_stream.empty()) {
      bool implicit = false;
      for (auto& [other, c] : g_by_stream) {
        if (other->device == s->device && !other->nonblocking) {
          c->invalid = true;
          implicit = true;
        }
      }
      if (implicit) {
        delete r.collective;
        delete r.library;
        return cudaErrorStreamCaptureImplicit;
      }
    }
  }
  if (effect) effect();
  ops::submit(ts, s, r);
  return cudaSuccess;
}

bool capturing(const StreamObj* s) {
  std::lock_guard lock(g_mu);
  return capture_of(s) != nullptr;
}

bool capture_host(ThreadState&, StreamObj* s, void (*fn)(void*), void* data, cudaError_t& err) {
  std::lock_guard lock(g_mu);
  Capture* c = capture_of(s);
  if (!c) return false;
  if (c->invalid) {
    err = cudaErrorStreamCaptureInvalidated;
    return true;
  }
  auto n = std::make_shared<Node>();
  n->kind = Kind::kHost;
  n->fn = fn;
  n->data = data;
  add_node(c, s, std::move(n));
  err = cudaSuccess;
  return true;
}

bool event_record(ThreadState&, StreamObj* s, EventObj* e, cudaError_t& err) {
  std::lock_guard lock(g_mu);
  Capture* c = capture_of(s);
  if (!c) {
    g_events.erase(e);  // recorded outside any capture again
    return false;
  }
  err = c->invalid ? cudaErrorStreamCaptureInvalidated : cudaSuccess;
  if (!c->invalid) g_events[e] = CapturedEvent{c, c->deps[s]};
  return true;
}

bool stream_wait(ThreadState& ts, StreamObj* s, EventObj* e, cudaError_t& err) {
  std::unique_lock lock(g_mu);
  Capture* mine = capture_of(s);
  auto it = g_events.find(e);
  if (it == g_events.end()) {
    if (!mine) return false;
    lock.unlock();
    // An event recorded outside the capture: the replay waits for its latest record.
    if (!e->recorded) {
      err = cudaSuccess;
      return true;
    }
    PodRecord r;
    r.type = PodRecord::kStreamWaitEvent;
    r.a = s->id;
    r.b = e->id;
    err = submit(ts, s, r);
    return true;
  }
  Capture* c = it->second.capture;
  if (c->invalid) {
    err = cudaErrorStreamCaptureInvalidated;
    return true;
  }
  if (mine && mine != c) {
    c->invalid = mine->invalid = true;
    err = cudaErrorStreamCaptureMerge;
    return true;
  }
  if (s->legacy) {
    c->invalid = true;
    err = cudaErrorStreamCaptureImplicit;
    return true;
  }
  std::vector<Node*>& d = c->deps[s];  // joins the capture (fork) or adds a dependency (join)
  if (!mine) {
    g_by_stream[s] = c;
    d.clear();
  }
  for (Node* n : it->second.deps) {
    if (std::find(d.begin(), d.end(), n) == d.end()) d.push_back(n);
  }
  err = cudaSuccess;
  return true;
}

void forget_event(const EventObj* e) {
  std::lock_guard lock(g_mu);
  g_events.erase(e);
}

// ---- Misuse checks ----

cudaError_t check_sync(StreamObj* s) {
  std::lock_guard lock(g_mu);
  Capture* c = capture_of(s);
  if (!c) return cudaSuccess;
  c->invalid = true;
  return cudaErrorStreamCaptureUnsupported;
}

cudaError_t check_unsafe_call() {
  std::lock_guard lock(g_mu);
  if (g_by_stream.empty() || t_mode == cudaStreamCaptureModeRelaxed) return cudaSuccess;
  const uint32_t me = this_thread();
  cudaError_t err = cudaSuccess;
  for (Capture* c : live_captures()) {
    const bool own = c->thread == me && c->mode != cudaStreamCaptureModeRelaxed;
    const bool global = t_mode == cudaStreamCaptureModeGlobal &&
                        c->mode == cudaStreamCaptureModeGlobal && c->thread != me;
    if (own || global) {
      c->invalid = true;
      err = cudaErrorStreamCaptureUnsupported;
    }
  }
  return err;
}

cudaError_t check_event(const EventObj* e) {
  std::lock_guard lock(g_mu);
  return g_events.count(e) ? cudaErrorCapturedEvent : cudaSuccess;
}

// ---- Capture ----

cudaError_t begin_capture(StreamObj* s, int mode, Graph* into, Node* const* deps, size_t n) {
  if (mode != cudaStreamCaptureModeGlobal && mode != cudaStreamCaptureModeThreadLocal &&
      mode != cudaStreamCaptureModeRelaxed) {
    return cudaErrorInvalidValue;
  }
  if (s->legacy) return cudaErrorStreamCaptureImplicit;
  const uint32_t me = this_thread();
  std::lock_guard lock(g_mu);
  if (into && !g_graphs.count(into)) return cudaErrorInvalidValue;
  if (capture_of(s)) return cudaErrorIllegalState;
  auto* c = new Capture();
  c->id = g_next_capture_id++;
  c->mode = mode;
  c->thread = me;
  c->origin = s;
  c->own_graph = into == nullptr;
  c->graph = into ? into : new Graph();
  if (!into) g_graphs.insert(c->graph);
  c->deps[s].assign(deps, deps + (deps ? n : 0));
  c->lanes[s] = 0;
  g_by_stream[s] = c;
  return cudaSuccess;
}

cudaError_t end_capture(StreamObj* s, Graph** out) {
  const uint32_t me = this_thread();
  Graph* drop = nullptr;
  cudaError_t err = cudaSuccess;
  {
    std::lock_guard lock(g_mu);
    Capture* c = capture_of(s);
    if (!c) return cudaErrorIllegalState;
    if (c->origin != s) {
      c->invalid = true;
      return cudaErrorStreamCaptureUnmatched;
    }
    if (c->mode != cudaStreamCaptureModeRelaxed && c->thread != me) {
      return cudaErrorStreamCaptureWrongThread;
    }
    if (!c->invalid && !joined(c)) err = cudaErrorStreamCaptureUnjoined;
    if (c->invalid) err = cudaErrorStreamCaptureInvalidated;
    finish(c);
    if (err != cudaSuccess && c->own_graph) drop = c->graph;
    *out = err == cudaSuccess ? c->graph : nullptr;
    delete c;
  }
  if (drop) destroy_graph(drop);
  return err;
}

CaptureInfo capture_info(StreamObj* s) {
  std::lock_guard lock(g_mu);
  CaptureInfo info;
  Capture* c = capture_of(s);
  if (!c) return info;
  info.status = c->invalid ? cudaStreamCaptureStatusInvalidated : cudaStreamCaptureStatusActive;
  info.id = c->id;
  info.graph = c->graph;
  const std::vector<Node*>& d = c->deps[s];
  info.deps = d.data();
  info.count = d.size();
  return info;
}

cudaError_t update_capture_dependencies(StreamObj* s, Node* const* deps, size_t n, unsigned flags) {
  if (flags > 1 || (n && !deps)) return cudaErrorInvalidValue;
  std::lock_guard lock(g_mu);
  Capture* c = capture_of(s);
  if (!c) return cudaErrorIllegalState;
  std::vector<Node*>& d = c->deps[s];
  if (flags == 1) d.clear();  // cudaStreamSetCaptureDependencies
  for (size_t i = 0; i < n; ++i) {
    if (std::find(d.begin(), d.end(), deps[i]) == d.end()) d.push_back(deps[i]);
  }
  return cudaSuccess;
}

int exchange_mode(int mode) {
  std::swap(t_mode, mode);
  return mode;
}

// ---- Graphs ----

Graph* create_graph() {
  auto* g = new Graph();
  std::lock_guard lock(g_mu);
  g_graphs.insert(g);
  return g;
}

bool valid_graph(const Graph* g) {
  std::lock_guard lock(g_mu);
  return g_graphs.count(g) != 0;
}

cudaError_t destroy_graph(Graph* g) {
  {
    std::lock_guard lock(g_mu);
    if (!g_graphs.erase(g)) return cudaErrorInvalidValue;
  }
  for (auto& [o, count] : g->user_refs) release_refs(o, count);
  delete g;
  return cudaSuccess;
}

cudaError_t graph_nodes(Graph* g, Node** nodes, size_t* count) {
  if (!count) return cudaErrorInvalidValue;
  std::lock_guard lock(g_mu);
  if (!g_graphs.count(g)) return cudaErrorInvalidValue;
  if (nodes) {
    for (size_t i = 0; i < *count; ++i) {
      nodes[i] = i < g->nodes.size() ? g->nodes[i].get() : nullptr;
    }
  }
  *count = g->nodes.size();
  return cudaSuccess;
}

cudaError_t node_dependencies(Node* n, Node** deps, size_t* count) {
  if (!n || !count) return cudaErrorInvalidValue;
  std::lock_guard lock(g_mu);
  if (deps) {
    for (size_t i = 0; i < *count; ++i) deps[i] = i < n->deps.size() ? n->deps[i] : nullptr;
  }
  *count = n->deps.size();
  return cudaSuccess;
}

cudaError_t node_type(Node* n, int* type) {
  if (!n || !type) return cudaErrorInvalidValue;
  switch (n->kind) {
    case Kind::kHost:
      *type = cudaGraphNodeTypeHost;
      break;
    case Kind::kEmpty:
      *type = cudaGraphNodeTypeEmpty;
      break;
    case Kind::kRecord:
      if (n->rec.type == PodRecord::kCopy) {
        *type = n->rec.copy_kind == wire::COPY_MEMSET ? cudaGraphNodeTypeMemset
                                                      : cudaGraphNodeTypeMemcpy;
      } else if (n->rec.type == PodRecord::kStreamWaitEvent) {
        *type = cudaGraphNodeTypeWaitEvent;
      } else if (n->rec.type == PodRecord::kEventRecord) {
        *type = cudaGraphNodeTypeEventRecord;
      } else {
        *type = cudaGraphNodeTypeKernel;
      }
      break;
  }
  return cudaSuccess;
}

cudaError_t instantiate(Graph* g, Exec** out) {
  if (!out) return cudaErrorInvalidValue;
  auto* x = new Exec();
  {
    std::lock_guard lock(g_mu);
    if (!g_graphs.count(g)) {
      delete x;
      return cudaErrorInvalidValue;
    }
    x->nodes = g->nodes;  // capture order is a topological order
    x->plan = make_plan(x->nodes);
    for (auto& [o, count] : g->user_refs) {
      o->refs.fetch_add(count);
      x->user_refs.emplace_back(o, count);
    }
    g_execs.insert(x);
  }
  *out = x;
  return cudaSuccess;
}

bool valid_exec(const Exec* x) {
  std::lock_guard lock(g_mu);
  return g_execs.count(x) != 0;
}

cudaError_t destroy_exec(Exec* x) {
  {
    std::lock_guard lock(g_mu);
    if (!g_execs.erase(x)) return cudaErrorInvalidValue;
  }
  for (auto& [o, count] : x->user_refs) release_refs(o, count);
  delete x;
  return cudaSuccess;
}

cudaError_t update_exec(Exec* x, Graph* g) {
  std::lock_guard lock(g_mu);
  if (!g_execs.count(x) || !g_graphs.count(g)) return cudaErrorInvalidValue;
  if (g->nodes.size() != x->nodes.size()) return cudaErrorGraphExecUpdateFailure;
  for (size_t i = 0; i < g->nodes.size(); ++i) {
    const Node& a = *g->nodes[i];
    const Node& b = *x->nodes[i];
    if (a.kind != b.kind || a.rec.type != b.rec.type || a.deps.size() != b.deps.size()) {
      return cudaErrorGraphExecUpdateFailure;
    }
  }
  Plan plan = make_plan(g->nodes);
  if (plan.lanes != x->plan.lanes || plan.cross_deps != x->plan.cross_deps) {
    return cudaErrorGraphExecUpdateFailure;
  }
  x->nodes = g->nodes;
  return cudaSuccess;
}

// Host nodes run when the stream reaches them: the replay leaves its API call, waits for the
// stream's earlier work, calls the function, and goes on (as cudaLaunchHostFunc does).
cudaError_t launch(Exec* x, const void* stream, bool per_thread) {
  release_user_object_destructors();
  std::vector<std::shared_ptr<Node>> nodes;
  Plan plan;
  {
    std::lock_guard lock(g_mu);
    if (!g_execs.count(x)) return cudaErrorInvalidResourceHandle;
    nodes = x->nodes;
    plan = x->plan;
  }
  Core& core = Core::instance();
  Time cost = core.launch_cost();
  size_t i = 0;
  bool lanes = false;  // replaying on several streams (not into a capture)
  std::optional<activity::GraphReplay> replay;
  while (true) {
    void (*fn)(void*) = nullptr;
    void* data = nullptr;
    {
      ApiCall call(core, cost);
      ThreadState& ts = call.ts();
      StreamObj* s = CudaState::instance().resolve_stream(ts, stream, per_thread);
      if (!s) return cudaErrorInvalidResourceHandle;
      if (!replay) replay.emplace(x->id, s->id, s->device);
      if (cost != 0 && plan.lanes > 1 && !capturing(s)) {
        prepare_lanes(ts, x, s->device);
        lanes = true;
        record_on(ts, s, x->lane_events[0]);  // the other lanes start after earlier work
        for (StreamObj* l : x->lane_streams) wait_on(ts, l, x->lane_events[0]);
      }
      cost = 0;
      for (; i < nodes.size() && !fn; ++i) {
        const Node& n = *nodes[i];
        StreamObj* ls = lanes && n.lane > 0 ? x->lane_streams[n.lane - 1] : s;
        replay->node(n.id);
        if (lanes) {
          for (int d : plan.cross_deps[i]) wait_on(ts, ls, x->node_events[d]);
        }
        if (n.kind == Kind::kHost) {
          cudaError_t err = cudaSuccess;
          if (capture_host(ts, ls, n.fn, n.data, err)) {  // a graph launched into a capture
            if (err != cudaSuccess) return err;
            continue;
          }
          ops::sync_stream(ts, ls);
          fn = n.fn;
          data = n.data;
        } else if (n.kind == Kind::kRecord) {
          PodRecord r = clone_for(n, ls->id);
          if (cudaError_t err = submit(ts, ls, r, n.effect); err != cudaSuccess) return err;
        }
        if (lanes && plan.recorded[i]) record_on(ts, ls, x->node_events[i]);
      }
      if (!fn && lanes) {  // the launch stream's later work waits for every lane
        for (size_t l = 0; l < x->lane_streams.size(); ++l) {
          record_on(ts, x->lane_streams[l], x->lane_events[l + 1]);
          wait_on(ts, s, x->lane_events[l + 1]);
        }
      }
    }
    if (!fn) return cudaSuccess;
    fn(data);
  }
}

cudaError_t dot_print(Graph* g, const char* path) {
  if (!path) return cudaErrorInvalidValue;
  std::lock_guard lock(g_mu);
  if (!g_graphs.count(g)) return cudaErrorInvalidValue;
  std::ofstream out(path);
  if (!out) return cudaErrorOperatingSystem;
  out << "digraph seer_graph {\n";
  for (const auto& n : g->nodes) {
    int type = 0;
    node_type(n.get(), &type);
    out << "  n" << static_cast<const void*>(n.get()) << " [label=\"type " << type << "\"];\n";
    for (const Node* d : n->deps) {
      out << "  n" << static_cast<const void*>(d) << " -> n" << static_cast<const void*>(n.get())
          << ";\n";
    }
  }
  out << "}\n";
  return cudaSuccess;
}

// ---- User objects ----

cudaError_t user_object_create(UserObject** out, void* ptr, void (*destroy)(void*),
                               unsigned initial, unsigned flags) {
  if (!out || !destroy || initial == 0 || flags != cudaUserObjectNoDestructorSync) {
    return cudaErrorInvalidValue;
  }
  auto* o = new UserObject();
  o->ptr = ptr;
  o->destroy = destroy;
  o->refs = initial;
  std::lock_guard lock(g_mu);
  g_user_objects.insert(o);
  *out = o;
  return cudaSuccess;
}

cudaError_t user_object_retain(UserObject* o, unsigned count) {
  if (!o || count == 0) return cudaErrorInvalidValue;
  o->refs.fetch_add(count);
  return cudaSuccess;
}

cudaError_t user_object_release(UserObject* o, unsigned count) {
  if (!o || count == 0) return cudaErrorInvalidValue;
  if (o->refs.load() <= static_cast<int64_t>(count)) {
    std::lock_guard lock(g_mu);
    g_user_objects.erase(o);
  }
  release_refs(o, count);
  return cudaSuccess;
}

cudaError_t graph_retain_user_object(Graph* g, UserObject* o, unsigned count, unsigned flags) {
  if (!o || count == 0 || flags > cudaGraphUserObjectMove) return cudaErrorInvalidValue;
  std::lock_guard lock(g_mu);
  if (!g_graphs.count(g)) return cudaErrorInvalidValue;
  if (!(flags & cudaGraphUserObjectMove)) o->refs.fetch_add(count);
  g->user_refs[o] += count;
  return cudaSuccess;
}

cudaError_t graph_release_user_object(Graph* g, UserObject* o, unsigned count) {
  if (!o || count == 0) return cudaErrorInvalidValue;
  {
    std::lock_guard lock(g_mu);
    if (!g_graphs.count(g)) return cudaErrorInvalidValue;
    auto it = g->user_refs.find(o);
    if (it == g->user_refs.end() || it->second < count) return cudaErrorInvalidValue;
    if ((it->second -= count) == 0) g->user_refs.erase(it);
  }
  release_refs(o, count);
  return cudaSuccess;
}

}  // namespace seer::client::graph
