#include "seer/simcore/engine.h"

#include <algorithm>

namespace seer::sim {

Engine::Engine(WaitListener& listener) : listener_(listener) {}

int Engine::add_gpu(const GpuSpec& spec, int node, const NodeLinks& links) {
  Gpu g;
  g.spec = spec;
  g.node = node;
  g.links = links;
  gpus_.push_back(std::move(g));
  return static_cast<int>(gpus_.size()) - 1;
}

uint32_t Engine::intern_kernel(const std::string& name) {
  auto [it, inserted] = kernel_ids_.emplace(name, static_cast<uint32_t>(kernel_names_.size()));
  if (inserted) kernel_names_.push_back(name);
  return it->second;
}

std::optional<uint32_t> Engine::find_stream(int process, uint64_t stream) const {
  auto it = stream_index_.find({process, stream});
  if (it == stream_index_.end()) return std::nullopt;
  return it->second;
}

bool Engine::create_stream(int process, uint64_t stream, int gpu, bool blocking,
                           bool legacy_default) {
  if (gpu < 0 || gpu >= gpu_count()) return false;
  if (stream_index_.count({process, stream})) return false;
  const auto index = static_cast<uint32_t>(streams_.size());
  Stream s;
  s.process = process;
  s.gpu = gpu;
  s.blocking = blocking || legacy_default;
  s.legacy_default = legacy_default;
  streams_.push_back(std::move(s));
  stream_info_.push_back({process, stream, gpu, legacy_default});
  stream_index_[{process, stream}] = index;
  gpus_[gpu].streams.push_back(index);
  return true;
}

// Legacy default stream semantics: work on it waits for all blocking streams of the same
// process and GPU; work on a blocking stream waits for the legacy default stream.
void Engine::add_implicit_deps(const Stream& s, std::vector<OpId>& deps) const {
  if (!s.blocking) return;
  for (uint32_t other : gpus_[s.gpu].streams) {
    const Stream& o = streams_[other];
    if (&o == &s || o.process != s.process || !o.last) continue;
    const bool relevant = s.legacy_default ? o.blocking : o.legacy_default;
    if (relevant && ops_[*o.last].state != OpState::kDone) deps.push_back(*o.last);
  }
}

Engine::OpId Engine::enqueue(uint32_t stream, Time t, const OpDesc& desc, std::vector<OpId> deps) {
  Stream& s = streams_[stream];
  add_implicit_deps(s, deps);
  const auto id = static_cast<OpId>(ops_.size());
  Op op;
  op.desc = desc;
  op.process = s.process;
  op.gpu = s.gpu;
  op.stream = stream;
  op.seq = process_seq_[s.process]++;
  op.submit = std::max(t, now_);
  op.deps = std::move(deps);
  ops_.push_back(std::move(op));
  for (OpId dep : ops_[id].deps) ops_[dep].dependents.push_back(id);
  s.queue.push_back(id);
  s.last = id;
  ++pending_ops_;
  if (s.queue.size() == 1) try_ready(id);
  return id;
}

bool Engine::submit(int process, uint64_t stream, Time t, const OpDesc& op) {
  auto s = find_stream(process, stream);
  if (!s) return false;
  enqueue(*s, t, op, {});
  return true;
}

bool Engine::record_event(int process, uint64_t event, uint64_t stream, Time t) {
  auto s = find_stream(process, stream);
  if (!s) return false;
  OpDesc desc;
  desc.kind = OpKind::kEventRecord;
  event_last_record_[{process, event}] = enqueue(*s, t, desc, {});
  return true;
}

bool Engine::stream_wait_event(int process, uint64_t stream, uint64_t event, Time t) {
  auto s = find_stream(process, stream);
  if (!s) return false;
  std::vector<OpId> deps;
  auto it = event_last_record_.find({process, event});
  if (it != event_last_record_.end() && ops_[it->second].state != OpState::kDone) {
    deps.push_back(it->second);
  }
  OpDesc desc;
  desc.kind = OpKind::kStreamWait;
  enqueue(*s, t, desc, std::move(deps));
  return true;
}

void Engine::try_ready(OpId id) {
  Op& op = ops_[id];
  if (op.state != OpState::kQueued) return;
  const Stream& s = streams_[op.stream];
  if (s.queue.empty() || s.queue.front() != id) return;
  Time ready = op.submit;
  for (OpId dep : op.deps) {
    if (ops_[dep].state != OpState::kDone) return;
    ready = std::max(ready, ops_[dep].end);
  }
  op.state = OpState::kReadyScheduled;
  op.ready = std::max(ready, now_);
  schedule(op.ready, Phase::kReady, id);
}

void Engine::schedule(Time t, Phase phase, OpId id) {
  events_.push(Event{t, phase, ops_[id].process, ops_[id].seq, id});
}

Engine::Resource Engine::resource_for(const Op& op) const {
  switch (op.desc.kind) {
    case OpKind::kKernel:
    case OpKind::kCopyD2D:
    case OpKind::kMemset: return Resource::kCompute;
    case OpKind::kCopyH2D: return Resource::kCopyIn;
    case OpKind::kCopyD2H: return Resource::kCopyOut;
    case OpKind::kCopyPeer: return Resource::kPeerOut;
    case OpKind::kCopyH2H:
    case OpKind::kEventRecord:
    case OpKind::kStreamWait: return Resource::kNone;
  }
  return Resource::kNone;
}

void Engine::on_ready(OpId id) {
  Op& op = ops_[id];
  const Resource r = resource_for(op);
  if (r == Resource::kNone) {
    start(id);
    return;
  }
  ResourceState& rs = gpus_[op.gpu].resources[static_cast<int>(r)];
  if (rs.busy) {
    op.state = OpState::kWaitingResource;
    rs.waiting.push_back(id);
    return;
  }
  rs.busy = true;
  start(id);
}

Time Engine::duration_of(Op& op, TimeSource& source) const {
  const Gpu& g = gpus_[op.gpu];
  switch (op.desc.kind) {
    case OpKind::kKernel:
      source = TimeSource::kGenericKernel;
      return generic_kernel_ns(g.spec, op.desc.geometry);
    case OpKind::kEventRecord:
    case OpKind::kStreamWait: source = TimeSource::kNone; return 0;
    default: {
      source = TimeSource::kCopyModel;
      const int peer = op.desc.peer_gpu;
      const bool same_node = peer >= 0 && peer < gpu_count() && gpus_[peer].node == g.node;
      return copy_ns(g.spec, g.links, op.desc, same_node);
    }
  }
}

void Engine::start(OpId id) {
  Op& op = ops_[id];
  op.state = OpState::kRunning;
  op.start = now_ > op.ready ? now_ : op.ready;
  TimeSource source = TimeSource::kNone;
  const Time d = duration_of(op, source);
  op.end = op.start + d;
  if (op.desc.kind != OpKind::kEventRecord && op.desc.kind != OpKind::kStreamWait) {
    records_.push_back(OpRecord{op.process, op.gpu, op.stream, op.desc, source, op.submit,
                                op.start, op.end});
  }
  schedule(op.end, Phase::kEnd, id);
}

void Engine::finish(OpId id) {
  Op& op = ops_[id];
  op.state = OpState::kDone;
  --pending_ops_;
  const Resource r = resource_for(op);
  if (r != Resource::kNone) {
    ResourceState& rs = gpus_[op.gpu].resources[static_cast<int>(r)];
    if (rs.waiting.empty()) {
      rs.busy = false;
    } else {
      const OpId next = rs.waiting.front();
      rs.waiting.pop_front();
      start(next);
    }
  }
  Stream& s = streams_[op.stream];
  s.queue.pop_front();
  if (!s.queue.empty()) try_ready(s.queue.front());
  for (OpId dependent : op.dependents) try_ready(dependent);
  for (uint32_t g : op.wait_groups) {
    WaitGroup& w = wait_groups_[g];
    w.max_end = std::max(w.max_end, op.end);
    if (--w.remaining == 0) listener_.on_wait_done(w.token, w.max_end);
  }
  op.dependents.clear();
  op.dependents.shrink_to_fit();
  op.deps.clear();
  op.deps.shrink_to_fit();
  op.wait_groups.clear();
  op.wait_groups.shrink_to_fit();
}

std::optional<Time> Engine::next_event_time() const {
  if (events_.empty()) return std::nullopt;
  return events_.top().t;
}

void Engine::step() {
  if (events_.empty()) return;
  const Time t = events_.top().t;
  now_ = std::max(now_, t);
  while (!events_.empty() && events_.top().t == t) {
    const Event e = events_.top();
    events_.pop();
    if (e.phase == Phase::kReady) {
      on_ready(e.op);
    } else {
      finish(e.op);
    }
  }
}

void Engine::wait_ops(const std::vector<OpId>& ops, uint64_t token) {
  Time done_end = 0;
  std::vector<OpId> pending;
  for (OpId id : ops) {
    if (ops_[id].state == OpState::kDone) {
      done_end = std::max(done_end, ops_[id].end);
    } else {
      pending.push_back(id);
    }
  }
  if (pending.empty()) {
    listener_.on_wait_done(token, done_end);
    return;
  }
  const auto g = static_cast<uint32_t>(wait_groups_.size());
  wait_groups_.push_back(WaitGroup{token, static_cast<int>(pending.size()), done_end});
  for (OpId id : pending) ops_[id].wait_groups.push_back(g);
}

bool Engine::wait_stream(int process, uint64_t stream, uint64_t token) {
  auto s = find_stream(process, stream);
  if (!s) return false;
  std::vector<OpId> ops;
  if (streams_[*s].last) ops.push_back(*streams_[*s].last);
  wait_ops(ops, token);
  return true;
}

void Engine::wait_event(int process, uint64_t event, uint64_t token) {
  std::vector<OpId> ops;
  auto it = event_last_record_.find({process, event});
  if (it != event_last_record_.end()) ops.push_back(it->second);
  wait_ops(ops, token);
}

void Engine::wait_gpu(int process, int gpu, uint64_t token) {
  std::vector<OpId> ops;
  if (gpu >= 0 && gpu < gpu_count()) {
    for (uint32_t s : gpus_[gpu].streams) {
      if (streams_[s].process == process && streams_[s].last) ops.push_back(*streams_[s].last);
    }
  }
  wait_ops(ops, token);
}

void Engine::note_alloc(int gpu, uint64_t bytes) {
  if (gpu < 0 || gpu >= gpu_count()) return;
  Gpu& g = gpus_[gpu];
  g.live_bytes += bytes;
  g.peak_bytes = std::max(g.peak_bytes, g.live_bytes);
}

void Engine::note_free(int gpu, uint64_t bytes) {
  if (gpu < 0 || gpu >= gpu_count()) return;
  Gpu& g = gpus_[gpu];
  g.live_bytes -= std::min(g.live_bytes, bytes);
}

}  // namespace seer::sim
