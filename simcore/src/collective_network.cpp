#include "seer/simcore/collective_network.h"

#include <algorithm>
#include <cmath>

#include "seer/netsim/hash.h"
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
      flows_(fabric_.topology()) {}

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

// Channel c's ring: ranks node by node; inside each node the ring is rotated so that it enters
// and leaves the node through local GPU (c mod gpus per node), whose rail NIC then carries that
// channel — channels spread over the rails as NCCL's rings do.
std::vector<int> CollectiveNetwork::ring_order(const Comm& c, int channel) const {
  const int gpn = config_.shape.gpus_per_node;
  std::map<int, std::vector<int>> by_node;
  for (int g : c.gpus) by_node[g / gpn].push_back(g);
  std::vector<int> order;
  for (auto& [node, gs] : by_node) {
    const size_t shift = gs.empty() ? 0 : static_cast<size_t>(channel) % gs.size();
    std::rotate(gs.begin(), gs.begin() + static_cast<std::ptrdiff_t>(shift), gs.end());
    order.insert(order.end(), gs.begin(), gs.end());
  }
  return order;
}

bool CollectiveNetwork::add_flow(Time now, Time latency, int src_gpu, int dst_gpu, double bytes,
                                 double rate, uint64_t token, uint64_t hash) {
  if (src_gpu == dst_gpu || bytes <= 0) return false;
  net::Path path = router_.route(fabric_.gpu(src_gpu), fabric_.gpu(dst_gpu), hash);
  path.latency = latency;  // NCCL's latency term, which covers the hops
  const net::FlowId id = flows_.start_flow(now, path, bytes, rate);
  flow_token_[id] = token;
  ++pending_[token];
  return true;
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
  const double data_us =
      choice.bw_GBps > 0 ? static_cast<double>(nbytes) / (1000 * choice.bw_GBps) : 0;
  plan.latency = static_cast<Time>(std::llround((choice.time_us - data_us) * 1e3));
  plan.data_ns = static_cast<Time>(std::ceil(data_us * 1e3));
  if (n > 1 && plan.data_ns > 0) {
    // Each rank sends its ring share to the next rank on every channel, at the rate that makes
    // the data phase take data_ns on an idle network; shared links slow it down.
    const int channels = std::max(1, plan.nchannels);
    const double per_edge =
        ring_bytes_per_rank(part.kind, static_cast<double>(nbytes), n) / channels;
    const double rate = per_edge * 1e9 / static_cast<double>(plan.data_ns);
    for (int ch = 0; ch < channels; ++ch) {
      const std::vector<int> ring = ring_order(c, ch);
      for (int i = 0; i < n; ++i) {
        const uint64_t hash =
            net::hash_combine(net::hash_combine(comm, token), static_cast<uint64_t>(ch * n + i));
        plan.flows +=
            add_flow(now, plan.latency, ring[i], ring[(i + 1) % n], per_edge, rate, token, hash)
                ? 1
                : 0;
      }
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
  if (plan.data_ns > 0 && add_flow(now, plan.latency, src_gpu, dst_gpu, static_cast<double>(bytes),
                                   p.bw_GBps * 1e9, token, net::hash_combine(comm, token))) {
    plan.flows = 1;
  }
  return plan;
}

std::vector<uint64_t> CollectiveNetwork::advance_to(Time t) {
  std::vector<uint64_t> done;
  for (const net::FlowId id : flows_.advance_to(t)) {
    auto it = flow_token_.find(id);
    if (it == flow_token_.end()) continue;
    const uint64_t token = it->second;
    flow_token_.erase(it);
    if (--pending_[token] == 0) {
      pending_.erase(token);
      done.push_back(token);
    }
  }
  return done;
}

}  // namespace seer::sim
