#include "seer/simcore/engine.h"

#include <algorithm>
#include <cstdio>

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

std::optional<Time> Engine::family_time(const GpuSpec& gpu, const OpDesc& op) const {
  // Ops built without intern_kernel (tests) name no kernel the table knows.
  if (op.kernel >= aten_kernels_.size()) return std::nullopt;
  const AtenKernel& aten = aten_kernels_[op.kernel];
  if (aten.family == AtenFamily::kNone || (op.nsizes == 0 && aten.needs_sizes)) {
    return std::nullopt;
  }
  return aten_kernel_time(gpu, aten, op.geometry, op.sizes, op.nsizes);
}

int32_t Engine::add_triton_kernel(TritonKernel model) {
  triton_kernels_.push_back(std::move(model));
  return static_cast<int32_t>(triton_kernels_.size() - 1);
}

const TritonKernel* Engine::triton_kernel(int32_t index) const {
  return index >= 0 && index < static_cast<int32_t>(triton_kernels_.size())
             ? &triton_kernels_[static_cast<size_t>(index)]
             : nullptr;
}

uint32_t Engine::intern_kernel(const std::string& name) {
  auto [it, inserted] = kernel_ids_.emplace(name, static_cast<uint32_t>(kernel_names_.size()));
  if (inserted) {
    kernel_names_.push_back(name);
    aten_kernels_.push_back(classify_aten_kernel(name));
  }
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
  op.seq = order_key_ ? *order_key_ : process_seq_[s.process]++;
  op.submit = std::max(t, now_);
  op.deps = std::move(deps);
  op.coll = pending_coll_;
  ops_.push_back(std::move(op));
  for (OpId dep : ops_[id].deps) ops_[dep].dependents.push_back(id);
  s.queue.push_back(id);
  s.last = id;
  ++pending_ops_;
  if (s.queue.size() == 1) try_ready(id);
  return id;
}

Engine::OpId Engine::enqueue_with_coll(uint32_t stream, Time t, const OpDesc& desc, uint32_t coll) {
  pending_coll_ = coll;
  const OpId id = enqueue(stream, t, desc, {});
  pending_coll_ = UINT32_MAX;
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
    case OpKind::kLibrary:
    case OpKind::kCopyD2D:
    case OpKind::kMemset:
      return Resource::kCompute;
    case OpKind::kCopyH2D:
      return Resource::kCopyIn;
    case OpKind::kCopyD2H:
      return Resource::kCopyOut;
    case OpKind::kCopyPeer:
      return Resource::kPeerOut;
    case OpKind::kCopyH2H:
    case OpKind::kEventRecord:
    case OpKind::kStreamWait:
    case OpKind::kCollective:
      return Resource::kNone;
  }
  return Resource::kNone;
}

void Engine::on_ready(OpId id) {
  Op& op = ops_[id];
  if (op.desc.kind == OpKind::kCollective) {
    op.state = OpState::kRunning;
    arrive_collective(id);
    return;
  }
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

Time Engine::duration_of(const Op& op, TimeSource& source, const GpuSpec& spec,
                         bool use_database) const {
  const Gpu& g = gpus_[op.gpu];
  switch (op.desc.kind) {
    case OpKind::kKernel:
      if (kernel_lookup_ && use_database) {
        if (auto t = kernel_lookup_(spec, kernel_names_[op.desc.kernel], op.desc.geometry, "",
                                    std::span<const uint64_t>(op.desc.sizes, op.desc.nsizes))) {
          source = TimeSource::kDatabase;
          return *t;
        }
      }
      if (const TritonKernel* triton = triton_kernel(op.desc.triton)) {
        source = TimeSource::kTritonModel;
        const double bytes =
            triton_bytes(*triton, op.desc.sizes, op.desc.nsizes, op.desc.geometry.blocks());
        const double flops =
            triton->dot_flops_per_program * static_cast<double>(op.desc.geometry.blocks());
        return triton_kernel_ns(spec, triton->kind, bytes, flops, triton->dot_type);
      }
      if (std::optional<Time> t = family_time(spec, op.desc)) {
        source = TimeSource::kFamilyModel;
        return *t;
      }
      source = TimeSource::kGenericKernel;
      return generic_kernel_ns(spec, op.desc.geometry);
    case OpKind::kLibrary:
      if (kernel_lookup_ && use_database) {
        const std::string params =
            op.desc.gemm
                ? "m=" + std::to_string(op.desc.m) + ",n=" + std::to_string(op.desc.n) +
                      ",k=" + std::to_string(op.desc.k) + ",batch=" + std::to_string(op.desc.batch)
                : "bytes=" + std::to_string(op.desc.bytes);
        if (auto t =
                kernel_lookup_(spec, kernel_names_[op.desc.kernel], LaunchGeometry{}, params, {})) {
          source = TimeSource::kDatabase;
          return *t;
        }
      }
      source = TimeSource::kLibraryModel;
      return library_ns(spec, op.desc);
    case OpKind::kEventRecord:
    case OpKind::kStreamWait:
      source = TimeSource::kNone;
      return 0;
    default: {
      source = TimeSource::kCopyModel;
      const int peer = op.desc.peer_gpu;
      const bool same_node = peer >= 0 && peer < gpu_count() && gpus_[peer].node == g.node;
      return copy_ns(spec, g.links, op.desc, same_node);
    }
  }
}

void Engine::start(OpId id) {
  Op& op = ops_[id];
  op.state = OpState::kRunning;
  op.start = now_ > op.ready ? now_ : op.ready;
  TimeSource source = TimeSource::kNone;
  Gpu& g = gpus_[op.gpu];
  Time d = duration_of(op, source, g.spec);
  Time interference = 0;
  if (resource_for(op) == Resource::kCompute) {
    if (g.comm_load.any()) d = contended_duration(op, source, d, interference);
    g.running_compute = id;
    op.hbm_rate = d > 0 ? hbm_bytes_of(op, g.spec) / (static_cast<double>(d) * 1e-9) : 0;
  }
  op.end = op.start + d;
  if (op.desc.kind == OpKind::kEventRecord) {
    event_records_.push_back(
        OpRecord{op.process, op.gpu, op.stream, op.desc, source, op.submit, op.start, op.end, 0});
  } else if (op.desc.kind != OpKind::kStreamWait) {
    records_.push_back(OpRecord{op.process, op.gpu, op.stream, op.desc, source, op.submit, op.start,
                                op.end, interference});
  }
  schedule(op.end, Phase::kEnd, id);
}

void Engine::finish(OpId id) {
  Op& op = ops_[id];
  op.state = OpState::kDone;
  --pending_ops_;
  const Resource r = resource_for(op);
  if (gpus_[op.gpu].running_compute == id) gpus_[op.gpu].running_compute = UINT32_MAX;
  if (op.desc.kind == OpKind::kCollective) remove_comm_load(id);
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
  if (op.coll != UINT32_MAX) {
    OpColl& c = colls_[op.coll];
    std::vector<CollPart>().swap(c.parts);
    std::vector<TransferRef>().swap(c.transfers);
  }
}

void Engine::add_comm(uint64_t comm, const std::vector<int>& gpus) {
  Comm c;
  c.gpus = gpus;
  std::vector<int> nodes;
  for (int g : gpus) nodes.push_back(gpus_.at(g).node);
  std::sort(nodes.begin(), nodes.end());
  c.shape.nranks = static_cast<int>(gpus.size());
  c.shape.nodes = static_cast<int>(std::unique(nodes.begin(), nodes.end()) - nodes.begin());
  c.pairs = RankPairIndex(c.shape.nranks);
  comms_[comm] = std::move(c);
  if (net_) net_->add_comm(comm, gpus);
}

bool Engine::submit_collective(int process, uint64_t stream, Time t, uint64_t comm, int rank,
                               const std::vector<CollPart>& parts) {
  auto s = find_stream(process, stream);
  auto c = comms_.find(comm);
  if (!s || c == comms_.end() || parts.empty() || rank < 0 || rank >= c->second.shape.nranks) {
    return false;
  }
  Comm& cm = c->second;
  OpColl oc;
  oc.comm = comm;
  oc.rank = rank;
  oc.parts = parts;
  OpDesc desc;
  desc.kind = OpKind::kCollective;
  desc.comm = comm;
  desc.nranks = cm.shape.nranks;
  desc.coll = parts.front().kind;
  desc.parts = static_cast<int>(parts.size());
  if (parts.front().p2p()) {
    for (const CollPart& p : parts) {
      if (!p.p2p() || p.root < 0 || p.root >= cm.shape.nranks) return false;
      const bool send = p.kind == CollKind::kSend;
      const int src = send ? rank : p.root;
      const int dst = send ? p.root : rank;
      uint32_t& slot = cm.pairs.slot(src, dst);
      if (slot == 0) {
        PairTransfers& pt = pair_transfers_.emplace_back();
        pt.comm = comm;
        pt.src = src;
        pt.dst = dst;
        slot = static_cast<uint32_t>(pair_transfers_.size());
      }
      PairTransfers& pt = pair_transfers_[slot - 1];
      oc.transfers.push_back(TransferRef{slot - 1, send ? pt.sends++ : pt.recvs++});
      desc.bytes += p.count * static_cast<uint64_t>(p.type_bytes);
    }
    oc.pending = static_cast<int>(oc.transfers.size());
  } else {
    if (parts.size() != 1) return false;
    oc.seq = cm.next_seq[rank]++;
    desc.bytes = collective_bytes(parts.front(), cm.shape.nranks);
  }
  const auto index = static_cast<uint32_t>(colls_.size());
  colls_.push_back(std::move(oc));
  const OpId id = enqueue_with_coll(*s, t, desc, index);
  (void)id;
  return true;
}

void Engine::complete_collective_op(OpId id, Time start, Time end, Time interference) {
  Op& op = ops_[id];
  op.start = start;
  op.end = end;
  records_.push_back(OpRecord{op.process, op.gpu, op.stream, op.desc, TimeSource::kCollectiveModel,
                              op.submit, op.start, op.end, interference});
  schedule(op.end, Phase::kEnd, id);
}

void Engine::arrive_collective(OpId id) {
  Op& op = ops_[id];
  OpColl& oc = colls_[op.coll];
  Comm& cm = comms_.at(oc.comm);
  const NodeLinks& links = gpus_[op.gpu].links;
  if (oc.transfers.empty()) {
    Instance& inst = instances_[{oc.comm, oc.seq}];
    const CollPart& mine = oc.parts.front();
    if (inst.ops.empty()) {
      inst.ops.assign(cm.shape.nranks, UINT32_MAX);
      inst.first = mine;
      inst.first_rank = oc.rank;
    } else if (!inst.first.same_call(mine)) {
      errors_.push_back(
          "mismatched collective on " + comm_name(oc.comm) + ", call #" + std::to_string(oc.seq) +
          ": rank " + std::to_string(inst.first_rank) + " called " +
          coll_kind_name(inst.first.kind) + "(count " + std::to_string(inst.first.count) +
          ", datatype " + std::to_string(inst.first.datatype) + ", op " +
          std::to_string(inst.first.redop) + ", root " + std::to_string(inst.first.root) +
          ") but rank " + std::to_string(oc.rank) + " called " + coll_kind_name(mine.kind) +
          "(count " + std::to_string(mine.count) + ", datatype " + std::to_string(mine.datatype) +
          ", op " + std::to_string(mine.redop) + ", root " + std::to_string(mine.root) + ")");
      return;
    }
    inst.ops[oc.rank] = id;
    if (++inst.arrived < cm.shape.nranks) return;
    if (net_) {
      const std::vector<OpId> ops = inst.ops;
      const CollPart first = inst.first;
      instances_.erase({oc.comm, oc.seq});
      start_networked_collective(ops, first, oc.comm);
      return;
    }
    const Time end = now_ + collective_ns(inst.first, cm.shape, links);
    for (OpId o : inst.ops) complete_collective_op(o, ops_[o].ready, end);
    instances_.erase({oc.comm, oc.seq});
    return;
  }
  for (size_t i = 0; i < oc.transfers.size(); ++i) {
    const TransferRef ref = oc.transfers[i];
    PairTransfers& pt = pair_transfers_[ref.pair];
    while (pt.pending.size() - pt.head <= ref.k - pt.first) pt.pending.emplace_back();
    Transfer& slot = pt.pending[pt.head + (ref.k - pt.first)];
    const CollPart& p = oc.parts[i];
    const uint64_t bytes = p.count * static_cast<uint64_t>(p.type_bytes);
    if (p.kind == CollKind::kSend) {
      slot.send_op = id;
      slot.send_arrived = true;
      slot.send_bytes = bytes;
    } else {
      slot.recv_op = id;
      slot.recv_arrived = true;
      slot.recv_bytes = bytes;
    }
    if (!slot.send_arrived || !slot.recv_arrived) continue;
    const Transfer tr = slot;
    const uint64_t comm = pt.comm;
    const int src = pt.src, dst = pt.dst;
    matched(pt, ref.k);
    if (tr.send_bytes != tr.recv_bytes) {
      errors_.push_back("mismatched send/recv on " + comm_name(comm) + ": rank " +
                        std::to_string(src) + " sends " + std::to_string(tr.send_bytes) +
                        " bytes to rank " + std::to_string(dst) + " (send #" +
                        std::to_string(ref.k) + "), which receives " +
                        std::to_string(tr.recv_bytes) + " bytes");
    }
    if (net_) {
      const uint64_t token = next_net_token_++;
      const CollectivePlan plan =
          net_->start_transfer(now_, comm, cm.gpus[src], cm.gpus[dst], tr.send_bytes, token);
      for (OpId o : {tr.send_op, tr.recv_op})
        ops_[o].desc.nchannels = static_cast<int16_t>(plan.nchannels);
      if (plan.flows == 0) {
        transfer_done(tr.send_op, tr.recv_op, now_ + plan.latency + plan.data_ns);
      } else {
        add_net_task(token, NetTask{{}, tr.send_op, tr.recv_op});
      }
      continue;
    }
    // A GPU's sends share its outgoing link and its receives its incoming link: transfers on one
    // link run one after another (all-to-all then takes (n-1) x chunk / bandwidth).
    Gpu& sg = gpus_[cm.gpus[src]];
    Gpu& dg = gpus_[cm.gpus[dst]];
    const bool same_node = sg.node == dg.node;
    const int link = same_node ? 0 : 1;
    const Time begin = std::max({now_, sg.send_free[link], dg.recv_free[link]});
    const Time end = begin + p2p_ns(tr.send_bytes, same_node, links);
    const Time busy_until = end - (same_node ? links.nvlink_latency : links.scale_out_latency);
    sg.send_free[link] = std::max(sg.send_free[link], busy_until);
    dg.recv_free[link] = std::max(dg.recv_free[link], busy_until);
    for (OpId o : {tr.send_op, tr.recv_op}) {
      OpColl& c = colls_[ops_[o].coll];
      c.max_end = std::max(c.max_end, end);
      if (--c.pending == 0) complete_collective_op(o, ops_[o].ready, c.max_end);
    }
  }
}

// Transfer k of the pair has both sides: it leaves the pair's pending list once every earlier
// one has (a pair's sends can arrive out of order from different streams).
void Engine::matched(PairTransfers& pt, uint64_t k) {
  pt.pending[pt.head + (k - pt.first)] = Transfer{};
  pt.pending[pt.head + (k - pt.first)].send_op = kMatched;
  while (pt.head < pt.pending.size() && pt.pending[pt.head].send_op == kMatched) {
    ++pt.head;
    ++pt.first;
  }
  if (pt.head == pt.pending.size()) {
    pt.pending.clear();
    pt.head = 0;
  } else if (pt.head >= 64 && 2 * pt.head >= pt.pending.size()) {
    pt.pending.erase(pt.pending.begin(), pt.pending.begin() + static_cast<ptrdiff_t>(pt.head));
    pt.head = 0;
  }
}

void Engine::set_network(NetworkConfig config) {
  net_ = std::make_unique<CollectiveNetwork>(std::move(config));
  for (const auto& [id, c] : comms_) net_->add_comm(id, c.gpus);
}

void Engine::transfer_done(OpId send_op, OpId recv_op, Time end) {
  for (OpId o : {send_op, recv_op}) {
    OpColl& c = colls_[ops_[o].coll];
    c.max_end = std::max(c.max_end, end);
    if (--c.pending == 0) complete_collective_op(o, ops_[o].ready, c.max_end);
  }
}

// Collectives NCCL runs as grouped send/recv (AlltoAll, Gather, Scatter) move one message per
// pair; the others follow the NCCL model's choice. Every rank's op ends when the last flow does.
void Engine::start_networked_collective(const std::vector<OpId>& ops, const CollPart& part,
                                        uint64_t comm) {
  const uint64_t token = next_net_token_++;
  const int n = static_cast<int>(ops.size());
  const uint64_t chunk = part.count * static_cast<uint64_t>(part.type_bytes);
  CollectivePlan plan;
  if (part.kind == CollKind::kAllToAll || part.kind == CollKind::kGather ||
      part.kind == CollKind::kScatter) {
    for (int src = 0; src < n; ++src) {
      for (int dst = 0; dst < n; ++dst) {
        if (src == dst) continue;
        if (part.kind == CollKind::kGather && dst != part.root) continue;
        if (part.kind == CollKind::kScatter && src != part.root) continue;
        const CollectivePlan p = net_->start_transfer(now_, comm, net_->comm_gpu(comm, src),
                                                      net_->comm_gpu(comm, dst), chunk, token);
        plan.flows += p.flows;
        plan.latency = std::max(plan.latency, p.latency);
        plan.nchannels = std::max(plan.nchannels, p.nchannels);
      }
    }
  } else {
    plan = net_->start_collective(now_, comm, part, token);
    if (!plan.error.empty()) errors_.push_back("NCCL model: " + plan.error);
  }
  for (OpId o : ops) {
    ops_[o].desc.algo = static_cast<int8_t>(
        plan.error.empty() && plan.data_ns + plan.latency > 0 && part.kind != CollKind::kAllToAll &&
                part.kind != CollKind::kGather && part.kind != CollKind::kScatter
            ? static_cast<int>(plan.algo)
            : -1);
    ops_[o].desc.proto = ops_[o].desc.algo >= 0 ? static_cast<int8_t>(plan.proto) : -1;
    ops_[o].desc.nchannels = static_cast<int16_t>(plan.nchannels);
  }
  const double rate = collective_hbm_rate(part, n, plan.latency + plan.data_ns);
  const double stretch = collective_stretch_at_start(ops, rate);
  for (OpId o : ops) add_comm_load(o, CommLoad{plan.nchannels, rate});
  if (plan.flows == 0) {
    const Time took = plan.latency + plan.data_ns;
    const auto stretched = static_cast<Time>(static_cast<double>(took) * stretch);
    for (OpId o : ops) complete_collective_op(o, ops_[o].ready, now_ + stretched, stretched - took);
    return;
  }
  add_net_task(token, NetTask{ops, UINT32_MAX, UINT32_MAX, now_, stretch});
}

void Engine::add_net_task(uint64_t token, NetTask task) {
  if (net_tasks_.empty()) net_task_base_ = token;
  if (token < net_task_base_) return;
  const auto i = static_cast<size_t>(token - net_task_base_);
  if (net_tasks_.size() <= i)
    net_tasks_.resize(i + 1, NetTask{{}, UINT32_MAX, UINT32_MAX, 0, 1.0, false});
  net_tasks_[i] = std::move(task);
}

void Engine::on_network_done(uint64_t token) {
  if (token < net_task_base_ || token - net_task_base_ >= net_tasks_.size()) return;
  NetTask& slot = net_tasks_[static_cast<size_t>(token - net_task_base_)];
  if (!slot.live) return;
  const NetTask task = std::move(slot);
  slot = NetTask{{}, UINT32_MAX, UINT32_MAX, 0, 1.0, false};
  while (!net_tasks_.empty() && !net_tasks_.front().live) {
    net_tasks_.pop_front();
    ++net_task_base_;
  }
  if (task.send_op != UINT32_MAX) {
    transfer_done(task.send_op, task.recv_op, now_);
    return;
  }
  const Time took = now_ - task.begin;
  const auto stretched = static_cast<Time>(static_cast<double>(took) * task.stretch);
  for (OpId o : task.ops) {
    complete_collective_op(o, ops_[o].ready, task.begin + stretched, stretched - took);
  }
}

std::string Engine::comm_name(uint64_t comm) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "comm %08llx", static_cast<unsigned long long>(comm >> 32));
  return buf;
}

std::vector<std::string> Engine::take_errors() {
  std::vector<std::string> out;
  out.swap(errors_);
  return out;
}

std::vector<std::string> Engine::describe_waiting_collectives() const {
  std::vector<std::string> out;
  for (const auto& [key, inst] : instances_) {
    std::string arrived, missing;
    for (size_t r = 0; r < inst.ops.size(); ++r) {
      std::string& list = inst.ops[r] == UINT32_MAX ? missing : arrived;
      if (!list.empty()) list += ',';
      list += std::to_string(r);
    }
    out.push_back(comm_name(key.first) + " call #" + std::to_string(key.second) + " " +
                  coll_kind_name(inst.first.kind) + ": ranks " + arrived + " are in it, ranks " +
                  missing + " never joined");
  }
  using Unmatched = std::tuple<uint64_t, int, int, uint64_t, bool>;  // comm, src, dst, k, send
  std::vector<Unmatched> unmatched;
  for (const PairTransfers& pt : pair_transfers_) {
    for (size_t i = pt.head; i < pt.pending.size(); ++i) {
      const Transfer& tr = pt.pending[i];
      if (tr.send_op == kMatched || tr.send_arrived == tr.recv_arrived) continue;
      unmatched.emplace_back(pt.comm, pt.src, pt.dst, pt.first + (i - pt.head), tr.send_arrived);
    }
  }
  std::sort(unmatched.begin(), unmatched.end());
  for (const auto& [comm, src, dst, k, send] : unmatched) {
    out.push_back(
        comm_name(comm) + ": " +
        (send ? "rank " + std::to_string(src) + " sends to rank " + std::to_string(dst) +
                    " (send #" + std::to_string(k) + "), which never posts the matching recv"
              : "rank " + std::to_string(dst) + " receives from rank " + std::to_string(src) +
                    " (recv #" + std::to_string(k) + "), which never posts the matching send"));
  }
  return out;
}

std::optional<Time> Engine::next_event_time() const {
  std::optional<Time> t;
  if (!events_.empty()) t = events_.top().t;
  if (net_) {
    if (auto f = net_->next_event_time(); f && (!t || *f < *t)) t = f;
  }
  return t;
}

void Engine::step() {
  const auto next = next_event_time();
  if (!next) return;
  const Time t = *next;
  now_ = std::max(now_, t);
  if (net_) {
    for (uint64_t token : net_->advance_to(t)) on_network_done(token);
  }
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
