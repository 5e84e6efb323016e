#include "seer/simcore/collective_network.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <tuple>

#include "seer/netsim/hash.h"
#include "seer/netsim/ns3_model.h"
#include "seer/simcore/collective_model.h"

namespace seer::sim {
namespace {

net::ClusterShape with_payload_efficiency(net::ClusterShape s, double efficiency) {
  s.nic_bw *= efficiency;
  return s;
}

// NCCL moves this many times the buffer through each rank for `kind` with a ring
// (nccl-tests' bus-bandwidth factor): the bytes of one ring edge, summed over channels.
double ring_bytes_per_rank(CollKind kind, double bytes, int n) {
  switch (kind) {
    case CollKind::kAllReduce:
      return 2.0 * (n - 1) / n * bytes;
    case CollKind::kAllGather:
    case CollKind::kReduceScatter:
      return (n - 1.0) / n * bytes;
    default:
      return bytes;
  }
}

nccl::Topo topo_for(const NetworkConfig& cfg, int nranks, int nodes) {
  nccl::Topo t;
  t.nranks = nranks;
  t.nnodes = nodes;
  t.sm = cfg.gpu.cc_major * 10 + cfg.gpu.cc_minor;
  if (t.sm >= 100) {
    t.sm = 100;
  } else if (t.sm >= 90) {
    t.sm = 90;
  } else {
    t.sm = 80;
  }
  t.intra = cfg.shape.nvswitch ? nccl::IntraKind::kNvSwitch : nccl::IntraKind::kNvLinkMesh;
  t.nvlink_gbps = cfg.shape.nvlink_bw_per_gpu / 1e9;
  t.nvlink_links = t.sm >= 90 ? 18 : 12;
  t.nics_per_node = cfg.shape.nics_per_node;
  t.nic_gbps = cfg.shape.nic_bw / 1e9;
  t.pcie_gbps = t.sm >= 90 ? 48 : 24;
  t.nvls = t.sm >= 90 && cfg.shape.nvswitch;
  return t;
}

}  // namespace

CollectiveNetwork::CollectiveNetwork(NetworkConfig config)
    : config_(std::move(config)),
      fabric_(with_payload_efficiency(config_.shape, config_.payload_efficiency)),
      router_(fabric_.topology(),
              config_.ecmp ? net::RoutingMode::Ecmp : net::RoutingMode::SinglePath),
      flows_(config_.model == "ns3" ? net::make_ns3_model(fabric_.topology())
                                    : std::make_unique<net::FlowModel>(fabric_.topology())),
      candidate_index_(fabric_.topology().node_count()) {}

CollectiveNetwork::~CollectiveNetwork() = default;

void CollectiveNetwork::add_comm(uint64_t comm, const std::vector<int>& gpus) {
  Comm c;
  c.gpus = gpus;
  std::vector<int> nodes;
  for (int g : gpus) nodes.push_back(g / config_.shape.gpus_per_node);
  std::sort(nodes.begin(), nodes.end());
  c.nodes = static_cast<int>(std::unique(nodes.begin(), nodes.end()) - nodes.begin());
  const nccl::Topo topo = topo_for(config_, static_cast<int>(gpus.size()), c.nodes);
  c.model =
      std::make_unique<nccl::CommModel>(topo, nccl::version(config_.nccl_version), config_.env);
  comms_[comm] = std::move(c);
}

// Channel c's ring: ranks node by node; inside each node the ring is rotated so that channels
// enter and leave the nodes through different GPUs, whose rail NICs then carry that channel —
// channels spread over the rails as NCCL's rings do. Every other node runs its part backwards
// (a snake), so a channel leaves node j and enters node j + 1 on the same rail, as NCCL's
// rail-aligned rings do (with an odd node count the closing edge changes rail).
std::vector<int> CollectiveNetwork::ring_order(const Comm& c, int channel) const {
  std::vector<int> order;
  const auto locals = local_orders(c, channel);
  for (size_t j = 0; j < locals.size(); ++j) {
    if (j % 2 == 1) {
      order.insert(order.end(), locals[j].rbegin(), locals[j].rend());
    } else {
      order.insert(order.end(), locals[j].begin(), locals[j].end());
    }
  }
  return order;
}

// The comm's GPUs node by node (nodes in increasing order), each node's list rotated by the
// channel so that its first GPU (the channel's leader there, whose rail NIC the channel uses)
// changes from channel to channel.
std::vector<std::vector<int>> CollectiveNetwork::local_orders(const Comm& c, int channel) const {
  const int gpn = config_.shape.gpus_per_node;
  std::map<int, std::vector<int>> by_node;
  for (int g : c.gpus) by_node[g / gpn].push_back(g);
  std::vector<std::vector<int>> out;
  for (auto& [node, gs] : by_node) {
    const size_t shift = gs.empty() ? 0 : static_cast<size_t>(channel) % gs.size();
    std::rotate(gs.begin(), gs.begin() + static_cast<std::ptrdiff_t>(shift), gs.end());
    out.push_back(gs);
  }
  return out;
}

// Up to kCandidates distinct equal-cost paths from src to dst, from hashes seeded by the pair:
// the same set for every flow between the two, so it is computed once.
const CollectiveNetwork::Candidates& CollectiveNetwork::candidates(net::NodeId src,
                                                                   net::NodeId dst) {
  uint32_t& slot = candidate_index_.slot(src, dst);
  if (slot != 0) return candidates_[slot - 1];
  constexpr int kCandidates = 16;
  Candidates& c = candidates_.emplace_back();
  slot = static_cast<uint32_t>(candidates_.size());
  const uint64_t pair =
      (static_cast<uint64_t>(static_cast<uint32_t>(src)) << 32) | static_cast<uint32_t>(dst);
  const uint64_t seed = net::mix64(pair);
  for (int i = 0; i < kCandidates; ++i) {
    const net::Path* p =
        &router_.route(src, dst, net::hash_combine(seed, static_cast<uint64_t>(i)));
    if (std::find(c.paths.begin(), c.paths.end(), p) == c.paths.end()) c.paths.push_back(p);
  }
  for (const net::LinkId l : c.paths.front()->links) {
    const bool everywhere = std::all_of(c.paths.begin(), c.paths.end(), [&](const net::Path* p) {
      return std::find(p->links.begin(), p->links.end(), l) != p->links.end();
    });
    if (everywhere) c.common.push_back(l);
  }
  for (const net::Path* p : c.paths) {
    std::vector<net::LinkId>& own = c.own.emplace_back();
    for (const net::LinkId l : p->links) {
      if (std::find(c.common.begin(), c.common.end(), l) == c.common.end()) own.push_back(l);
    }
  }
  return c;
}

// ECMP: the path the flow hash picks. Adaptive: of the pair's candidate paths, the one whose
// busiest link carries the fewest flows (by weight: channels); the flow hash picks where the search
// starts, and the first of equals wins, so idle networks spread flows as ECMP does and runs stay
// deterministic.
const net::Path& CollectiveNetwork::choose_path(net::NodeId src, net::NodeId dst, uint64_t hash) {
  if (!config_.adaptive_routing) return router_.route(src, dst, hash);
  const Candidates& c = candidates(src, dst);
  const std::vector<const net::Path*>& paths = c.paths;
  const auto size = static_cast<uint32_t>(paths.size());
  const uint32_t start = net::pick_index(hash, size);
  if (size == 1) return *paths[0];
  const auto load_of = [&](const std::vector<net::LinkId>& links) {
    double most = 0;
    for (const net::LinkId l : links) {
      if (static_cast<size_t>(l) < link_flows_.size()) most = std::max(most, link_flows_[l]);
    }
    return most;
  };
  // No candidate is less loaded than the links they all cross (the NICs' own, on a fat-tree):
  // once one reaches that, the search is over. A path's load is the larger of that floor and
  // the busiest of its own links.
  const double floor = load_of(c.common);
  uint32_t best = start;
  double best_load = std::max(floor, load_of(c.own[start]));
  for (uint32_t i = 1; i < size && best_load > floor; ++i) {
    const uint32_t k = (start + i) % size;
    const double l = std::max(floor, load_of(c.own[k]));
    if (l < best_load) {
      best = k;
      best_load = l;
    }
  }
  return *paths[best];
}

bool CollectiveNetwork::add_flow(Time now, Time latency, net::NodeId src, net::NodeId dst,
                                 double bytes, double rate, double weight, uint64_t token,
                                 uint64_t hash) {
  if (src == dst || bytes <= 0) return false;
  const net::Path& chosen = choose_path(src, dst, hash);
  // NCCL's latency term, which covers the hops. The links go through a kept buffer: copying them
  // into a new Path for each of the millions of flows of an AlltoAll sweep cost an allocation each.
  net::Path& path = flow_path_;
  path.links.assign(chosen.links.begin(), chosen.links.end());
  path.latency = latency;
  const net::FlowId id = flows_->start_flow(now, path, bytes, rate, weight);
  if (id < first_flow_ + static_cast<net::FlowId>(running_.size())) {
    throw std::logic_error("network model reused flow id " + std::to_string(id));
  }
  if (running_.empty()) first_flow_ = id;
  running_.resize(static_cast<size_t>(id - first_flow_) + 1);
  running_.back() = RunningFlow{token, nullptr, weight, true};
  ++pending_[token];
  for (const net::LinkId l : path.links) {
    if (static_cast<size_t>(l) >= link_bytes_.size()) link_bytes_.resize(l + 1, 0.0);
    link_bytes_[l] += bytes;
  }
  if (track_links()) {
    running_.back().path = &chosen;
    for (const net::LinkId l : path.links) {
      if (static_cast<size_t>(l) >= link_flows_.size()) link_flows_.resize(l + 1, 0.0);
      link_flows_[l] += weight;
      if (config_.record_link_utilisation) touch(l);
    }
  }
  return true;
}

// The data of one collective as edges (from, to, bytes) on the topology, following the chosen
// algorithm. README.md ("Collectives as flows") explains each pattern.
std::vector<CollectiveNetwork::Edge> CollectiveNetwork::edges_of(const Comm& c,
                                                                 const CollPart& part,
                                                                 const nccl::Choice& choice,
                                                                 double bytes) const {
  std::vector<Edge> edges;
  const int n = static_cast<int>(c.gpus.size());
  const int nch = std::max(1, choice.nchannels);
  // Edges that carry every channel's traffic (NVLS, PAT, CollNet) count as that many flows when
  // they share links with other traffic; a ring or tree edge is one channel's.
  const double channels = nch;
  auto gpu = [&](int g) { return fabric_.gpu(g); };
  auto node_of = [&](int g) { return g / config_.shape.gpus_per_node; };
  const bool chain = part.kind == CollKind::kBroadcast || part.kind == CollKind::kReduce;

  // Two complementary binary trees over the nodes (NCCL's double binary tree): tree 0 in node
  // order, tree 1 mirrored; parent index of position p is (p - 1) / 2.
  auto tree_edges = [&](int nodes, int tree, const std::function<net::NodeId(int)>& at, double b,
                        double weight) {
    for (int p = 1; p < nodes; ++p) {
      const int q = (p - 1) / 2;
      const int child = tree == 0 ? p : nodes - 1 - p;
      const int parent = tree == 0 ? q : nodes - 1 - q;
      edges.push_back({at(child), at(parent), b, weight});  // reduce up
      edges.push_back({at(parent), at(child), b, weight});  // broadcast down
    }
  };
  // NVLink SHARP inside one node: every GPU of `gs` sends to the NVSwitch and receives from it.
  auto nvls_intra = [&](const std::vector<int>& gs, double s) {
    const net::NodeId sw = fabric_.nvswitch(node_of(gs.front()));
    const double k = static_cast<double>(gs.size());
    double up = s + s / k, down = s / k + s;  // AllReduce: ld_reduce all shards, st multicast
    if (part.kind == CollKind::kAllGather) {
      up = s / k;
      down = s;
    } else if (part.kind == CollKind::kReduceScatter) {
      up = s;
      down = s / k;
    }
    for (int g : gs) {
      edges.push_back({gpu(g), sw, up, channels});
      edges.push_back({sw, gpu(g), down, channels});
    }
  };

  using nccl::Algo;
  const bool has_switch = config_.shape.nvswitch;
  Algo algo = choice.algo;
  if ((algo == Algo::kNvls || algo == Algo::kNvlsTree) && !has_switch) algo = Algo::kRing;
  switch (algo) {
    case Algo::kRing: {
      // Every channel: each rank sends its ring share to the next rank; Broadcast and Reduce
      // run the ring as a chain from (to) the root, without the wrap edge.
      const double per_edge = ring_bytes_per_rank(part.kind, bytes, n) / nch;
      for (int ch = 0; ch < nch; ++ch) {
        std::vector<int> ring = ring_order(c, ch);
        if (chain) {
          const int root_gpu = c.gpus.at(static_cast<size_t>(std::clamp(part.root, 0, n - 1)));
          const auto it = std::find(ring.begin(), ring.end(), root_gpu);
          std::rotate(ring.begin(), it, ring.end());
          if (part.kind == CollKind::kReduce)
            std::rotate(ring.begin(), ring.begin() + 1, ring.end());
        }
        const int count = chain ? n - 1 : n;
        for (int i = 0; i < count; ++i) {
          edges.push_back({gpu(ring[i]), gpu(ring[(i + 1) % n]), per_edge});
        }
      }
      break;
    }
    case Algo::kTree: {
      // Per channel S / channels goes up (reduce) and down (broadcast) every tree edge: a chain
      // inside each node from the channel's leader, a binary tree of leaders across nodes
      // (channels alternate between the two trees).
      const double b = bytes / nch;
      for (int ch = 0; ch < nch; ++ch) {
        const auto locals = local_orders(c, ch);
        for (const auto& gs : locals) {
          for (size_t i = 0; i + 1 < gs.size(); ++i) {
            edges.push_back({gpu(gs[i + 1]), gpu(gs[i]), b});
            edges.push_back({gpu(gs[i]), gpu(gs[i + 1]), b});
          }
        }
        tree_edges(
            static_cast<int>(locals.size()), ch % 2,
            [&](int k) { return gpu(locals[static_cast<size_t>(k)].front()); }, b, 1);
      }
      break;
    }
    case Algo::kNvls:
    case Algo::kNvlsTree: {
      const auto locals = local_orders(c, 0);
      for (const auto& gs : locals) nvls_intra(gs, bytes);
      if (locals.size() > 1) {
        // Across nodes each head GPU (one per NIC) moves its share of the node's result:
        // NVLS through SHARP in the leaf switch (up and back), NVLSTree through a tree of nodes.
        const int heads =
            std::max(1, std::min({c.model->graphs().nvls_heads, config_.shape.nics_per_node,
                                  static_cast<int>(locals.front().size())}));
        const double per_head = std::max(1.0, channels / heads);  // channels through one head
        for (int h = 0; h < heads; ++h) {
          auto head = [&](int k) {
            const auto& gs = locals[static_cast<size_t>(k)];
            return gpu(gs[static_cast<size_t>(h) % gs.size()]);
          };
          if (algo == Algo::kNvls) {
            for (size_t k = 0; k < locals.size(); ++k) {
              const int g = locals[k][static_cast<size_t>(h) % locals[k].size()];
              const int gpn = config_.shape.gpus_per_node;
              const net::NodeId leaf = fabric_.leaf_of_nic(g / gpn, fabric_.rail_of_gpu(g % gpn));
              edges.push_back({gpu(g), leaf, bytes / heads, per_head});
              edges.push_back({leaf, gpu(g), bytes / heads, per_head});
            }
          } else {
            for (int tree = 0; tree < 2; ++tree) {
              tree_edges(static_cast<int>(locals.size()), tree, head, bytes / heads / 2,
                         std::max(1.0, per_head / 2));
            }
          }
        }
      }
      break;
    }
    case Algo::kPat: {
      // AllGather / ReduceScatter by doubling distances: at distance d = 2^k every rank sends
      // min(d, n - d) blocks of S / n to the rank d ahead (AllGather) or behind (ReduceScatter).
      const double block = bytes / n;
      for (int d = 1; d < n; d *= 2) {
        const double b = std::min(d, n - d) * block;
        for (int r = 0; r < n; ++r) {
          const int peer = part.kind == CollKind::kReduceScatter ? (r - d + n) % n : (r + d) % n;
          edges.push_back({gpu(c.gpus[static_cast<size_t>(r)]),
                           gpu(c.gpus[static_cast<size_t>(peer)]), b, channels});
        }
      }
      break;
    }
    case Algo::kCollNetDirect:
    case Algo::kCollNetChain: {
      // Approximate: inside each node every GPU exchanges its data with the heads (through the
      // NVSwitch), and each head sends its share to the SHARP leaf switch and back.
      const auto locals = local_orders(c, 0);
      const int gpn = config_.shape.gpus_per_node;
      for (const auto& gs : locals) {
        const int heads =
            std::max(1, std::min(config_.shape.nics_per_node, static_cast<int>(gs.size())));
        for (size_t i = 0; i < gs.size(); ++i) {
          const int head = gs[i % static_cast<size_t>(heads)];
          if (head != gs[i]) {
            edges.push_back({gpu(gs[i]), gpu(head), bytes / gs.size(), channels});
            edges.push_back({gpu(head), gpu(gs[i]), bytes / gs.size(), channels});
          }
        }
        for (int h = 0; h < heads && config_.shape.nics_per_node > 0; ++h) {
          const int g = gs[static_cast<size_t>(h)];
          const net::NodeId leaf = fabric_.leaf_of_nic(g / gpn, fabric_.rail_of_gpu(g % gpn));
          edges.push_back({gpu(g), leaf, bytes / heads, std::max(1.0, channels / heads)});
          edges.push_back({leaf, gpu(g), bytes / heads, std::max(1.0, channels / heads)});
        }
      }
      break;
    }
  }
  return edges;
}

// Edges between the same two nodes with the same bytes per channel, on the only path between
// them (NVLink through the NVSwitch, GPU to its NIC), become one flow whose weight is their
// count: the same rates and completion times as separate flows, with a fraction of the work.
// Edges with several paths stay apart, so routing can still spread them.
std::vector<CollectiveNetwork::Edge> CollectiveNetwork::merge_parallel(std::vector<Edge> edges) {
  std::vector<Edge> out;
  std::map<std::tuple<net::NodeId, net::NodeId, double>, size_t> at;
  for (size_t i = 0; i < edges.size(); ++i) {
    Edge e = edges[i];
    e.index = i;
    if (e.src == e.dst || e.bytes <= 0 || candidates(e.src, e.dst).paths.size() != 1) {
      out.push_back(e);
      continue;
    }
    auto [it, fresh] = at.try_emplace({e.src, e.dst, e.bytes / e.weight}, out.size());
    if (fresh) {
      out.push_back(e);
    } else {
      out[it->second].bytes += e.bytes;
      out[it->second].weight += e.weight;
    }
  }
  return out;
}

CollectivePlan CollectiveNetwork::start_collective(Time now, uint64_t comm, const CollPart& part,
                                                   uint64_t token) {
  CollectivePlan plan;
  const Comm& c = comms_.at(comm);
  const int n = static_cast<int>(c.gpus.size());
  const uint64_t nbytes = collective_bytes(part, n);
  const auto func = nccl::func_of(part.kind);
  if (!func) {
    plan.error = "no NCCL cost model for this operation";
    return plan;
  }
  const nccl::Choice choice = c.model->choose(*func, nbytes);
  if (!choice.ok) {
    plan.error = choice.error;
    return plan;
  }
  plan.algo = choice.algo;
  plan.proto = choice.proto;
  plan.nchannels = choice.nchannels;
  // The bytes at Seer's data bandwidth are the data phase: the flows get the rates that make it
  // last exactly that on an idle network, and shared links slow them down. Everything else in
  // Seer's time (NCCL's latency, launch, chunk synchronisation) comes before, as path latency.
  const double data_us =
      choice.data_bw_GBps > 0 ? static_cast<double>(nbytes) / (1000 * choice.data_bw_GBps) : 0;
  plan.latency = static_cast<Time>(std::llround((choice.time_us - data_us) * 1e3));
  plan.data_ns = static_cast<Time>(std::ceil(data_us * 1e3));
  if (n > 1 && plan.data_ns > 0) {
    const std::vector<Edge> edges =
        merge_parallel(edges_of(c, part, choice, static_cast<double>(nbytes)));
    for (const Edge& e : edges) {
      const double rate = e.bytes * 1e9 / static_cast<double>(plan.data_ns);
      const uint64_t hash =
          net::hash_combine(net::hash_combine(comm, token), static_cast<uint64_t>(e.index));
      plan.flows +=
          add_flow(now, plan.latency, e.src, e.dst, e.bytes, rate, e.weight, token, hash) ? 1 : 0;
    }
  }
  return plan;
}

CollectivePlan CollectiveNetwork::start_transfer(Time now, uint64_t comm, int src_gpu, int dst_gpu,
                                                 uint64_t bytes, uint64_t token) {
  CollectivePlan plan;
  const Comm& c = comms_.at(comm);
  const bool same_node =
      src_gpu / config_.shape.gpus_per_node == dst_gpu / config_.shape.gpus_per_node;
  const nccl::P2pEstimate p = c.model->p2p(bytes, same_node);
  plan.nchannels = p.nchannels;
  const double data_us = p.bw_GBps > 0 ? static_cast<double>(bytes) / (1000 * p.bw_GBps) : 0;
  plan.latency = static_cast<Time>(std::llround((p.time_us - data_us) * 1e3));
  plan.data_ns = static_cast<Time>(std::ceil(data_us * 1e3));
  if (plan.data_ns > 0 && add_flow(now, plan.latency, fabric_.gpu(src_gpu), fabric_.gpu(dst_gpu),
                                   static_cast<double>(bytes), p.bw_GBps * 1e9, 1.0, token,
                                   net::hash_combine(comm, token))) {
    plan.flows = 1;
  }
  return plan;
}

std::vector<uint64_t> CollectiveNetwork::advance_to(Time t) {
  std::vector<uint64_t> done;
  const std::vector<net::FlowId> finished = flows_->advance_to(t);
  // Loads are sampled at most once per merge window (changes inside one merge anyway), and always
  // when the network falls idle, so every series ends at zero.
  if (config_.record_link_utilisation &&
      (t - last_recorded_ >= config_.utilisation_merge_ns ||
       (flows_->active_flow_count() == 0 && flows_->waiting_flow_count() == 0))) {
    record_utilisation(t);
    last_recorded_ = t;
  }
  for (const net::FlowId id : finished) {
    RunningFlow* flow = running_flow(id);
    if (flow == nullptr) continue;
    flow->running = false;
    if (flow->path != nullptr) {
      for (const net::LinkId l : flow->path->links) link_flows_[l] -= flow->weight;
    }
    const uint64_t token = flow->token;
    if (--pending_[token] == 0) {
      pending_.erase(token);
      done.push_back(token);
    }
  }
  while (!running_.empty() && !running_.front().running) {
    running_.pop_front();
    ++first_flow_;
  }
  return done;
}

CollectiveNetwork::RunningFlow* CollectiveNetwork::running_flow(net::FlowId id) {
  if (id < first_flow_ || id - first_flow_ >= static_cast<net::FlowId>(running_.size())) {
    return nullptr;
  }
  RunningFlow& flow = running_[static_cast<size_t>(id - first_flow_)];
  return flow.running ? &flow : nullptr;
}

// After the flows changed at `t`: the load of every link that has (or just had) flows, appended
// to its series when it changed. Flows finishing at `t` are already gone from the flow model.
void CollectiveNetwork::touch(net::LinkId l) {
  if (static_cast<size_t>(l) >= is_touched_.size()) is_touched_.resize(l + 1, 0);
  if (is_touched_[l]) return;
  is_touched_[l] = 1;
  touched_.push_back(l);
}

void CollectiveNetwork::record_utilisation(Time t) {
  for (size_t i = 0; i < touched_.size();) {
    const net::LinkId l = touched_[i];
    const double capacity = fabric_.topology().link(l).bandwidth;
    const double load = flows_->link_utilization(l) * capacity;
    if (static_cast<size_t>(l) >= series_of_.size()) series_of_.resize(l + 1, nullptr);
    const bool fresh = series_of_[l] == nullptr;
    if (fresh) {
      LinkSeries& created = series_[l];
      created.name = link_name(l);
      created.capacity_Bps = capacity;
      series_of_[l] = &created;
    }
    auto& pts = series_of_[l]->points;
    if (!(fresh && load == 0)) {
      if (!pts.empty() && t - pts.back().first < config_.utilisation_merge_ns) {
        pts.back().second = load;  // merge: the later value wins
        if (pts.size() >= 2 && pts[pts.size() - 2].second == load) pts.pop_back();
      } else if (pts.empty() || pts.back().second != load) {
        pts.emplace_back(t, load);
      }
    }
    // Links left without flows drop out once their zero load is recorded.
    if (link_flows_[l] < 0.5 && load == 0) {  // weights are whole channel counts
      is_touched_[l] = 0;
      touched_[i] = touched_.back();
      touched_.pop_back();
    } else {
      ++i;
    }
  }
}

std::vector<LinkSeries> CollectiveNetwork::link_utilisation() const {
  std::vector<LinkSeries> out;
  for (const auto& [l, s] : series_) {
    if (!s.points.empty()) out.push_back(s);
  }
  return out;
}

std::string CollectiveNetwork::link_name(net::LinkId link) const {
  const net::Topology& topo = fabric_.topology();
  const net::Link& k = topo.link(link);
  const std::string& a = topo.node(k.from).name;
  std::string b = topo.node(k.to).name;
  const size_t slash = a.find('/');
  if (slash != std::string::npos && b.compare(0, slash + 1, a, 0, slash + 1) == 0) {
    b = b.substr(slash + 1);
  }
  return a + "->" + b;
}

}  // namespace seer::sim
