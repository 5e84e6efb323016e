// The ns-3 backend against the flow model on a ring over a small fat-tree: every GPU sends to the
// next one (NVLink inside a node, PCIe, NIC, leaf, spine between nodes), as a ring collective's
// step does. They must agree within 15 %.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "ns3_test_util.h"
#include "seer/netsim/cluster_fabric.h"
#include "seer/netsim/flow_model.h"
#include "seer/netsim/hash.h"
#include "seer/netsim/router.h"

namespace seer::net {
namespace {

using test::drain;

constexpr double kMiB = 1024.0 * 1024;

// 4 nodes of 2 GPUs (DGX-H100-like rates and latencies), a NIC per GPU, 2-port leaves, spines.
ClusterShape small_fat_tree() {
  ClusterShape shape;
  shape.nodes = 4;
  shape.gpus_per_node = 2;
  shape.nvlink_bw_per_gpu = 450e9;
  shape.nvswitch_latency = 1000;
  shape.pcie_bw = 55e9;
  shape.pcie_latency = 2000;
  shape.nics_per_node = 2;
  shape.nic_bw = 50e9;
  shape.nic_latency = 750;
  shape.tiers = 2;
  shape.hosts_per_leaf = 2;
  shape.switch_hop_latency = 250;
  return shape;
}

// Seer's ring (CollectiveNetwork::ring_order): node by node, every other node backwards, each
// node's GPUs rotated by the channel, so that a ring leaves and enters nodes on the same rail.
// Each edge takes, of 16 ECMP candidates, the path whose busiest link carries the fewest flows
// so far (CollectiveNetwork's adaptive routing).
struct Ring {
  // With `nccl` false: GPU g sends to g + 1, and each flow takes the path its index hashes to.
  explicit Ring(int channels, bool nccl = true)
      : fabric(small_fat_tree()), router(fabric.topology()) {
    const int gpn = fabric.gpus_per_node();
    std::vector<int> load(static_cast<size_t>(fabric.topology().link_count()), 0);
    for (int c = 0; c < channels; ++c) {
      std::vector<int> order;
      for (int node = 0; node < fabric.node_count(); ++node) {
        std::vector<int> gs;
        for (int i = 0; i < gpn; ++i) gs.push_back(node * gpn + (nccl ? (i + c) % gpn : i));
        if (nccl && node % 2 == 1) std::reverse(gs.begin(), gs.end());
        order.insert(order.end(), gs.begin(), gs.end());
      }
      for (size_t i = 0; i < order.size(); ++i) {
        const NodeId src = fabric.gpu(order[i]);
        const NodeId dst = fabric.gpu(order[(i + 1) % order.size()]);
        const Path* best = nullptr;
        int best_load = 0;
        for (uint64_t h = 0; h < (nccl ? 16u : 1u); ++h) {
          const uint64_t hash = nccl ? hash_combine(static_cast<uint64_t>(src), h) : paths.size();
          const Path& p = router.route(src, dst, hash);
          int most = 0;
          for (const LinkId l : p.links) most = std::max(most, load[static_cast<size_t>(l)]);
          if (!best || most < best_load) {
            best = &p;
            best_load = most;
          }
        }
        for (const LinkId l : best->links) ++load[static_cast<size_t>(l)];
        paths.push_back(best);
      }
    }
  }
  ClusterFabric fabric;
  Router router;
  std::vector<const Path*> paths;
};

// Starts one flow per path at `now`; `cap` of 0 means uncapped.
template <typename Model>
std::vector<FlowId> start_round(Model& model, const Ring& ring, Time now, double bytes,
                                double cap) {
  std::vector<FlowId> ids;
  for (const Path* p : ring.paths) {
    ids.push_back(model.start_flow(now, *p, bytes, cap > 0 ? cap : kUnlimitedRate, 1));
  }
  return ids;
}

// Durations of one round of the ring in both models. ns-3 first runs a small round so that the
// connections exist (a collective's connections are set up once, at communicator creation).
void compare(const Ring& ring, double bytes, double cap, const char* name, double per_flow = 0.15) {
  FlowModel flow_model(ring.fabric.topology());
  const std::vector<FlowId> f_ids = start_round(flow_model, ring, 0, bytes, cap);
  const auto f_done = drain(flow_model);

  Ns3Model ns3(ring.fabric.topology(), Ns3Options{});
  start_round(ns3, ring, 0, 64 * 1024, 0);
  drain(ns3);
  const Time start = ns3.now();
  const std::vector<FlowId> p_ids = start_round(ns3, ring, start, bytes, cap);
  int steps = 0;
  const auto p_done = drain(ns3, &steps);

  Time f_end = 0, p_end = 0;
  double worst = 0;
  for (size_t i = 0; i < f_ids.size(); ++i) {
    const Time f = f_done.at(f_ids[i]);
    const Time p = p_done.at(p_ids[i]) - start;
    f_end = std::max(f_end, f);
    p_end = std::max(p_end, p);
    const double diff = static_cast<double>(p) / static_cast<double>(f) - 1;
    worst = std::max(worst, std::abs(diff));
    EXPECT_NEAR(static_cast<double>(p), static_cast<double>(f), per_flow * static_cast<double>(f))
        << name << ": flow " << i << " (" << ring.paths[i]->links.size() << " links)";
  }
  const auto stats = ns3.stats();
  std::printf(
      "%s: %zu flows of %.1f MiB: flow model %.1f us, ns-3 %.1f us (%+.2f %%), worst flow "
      "%.2f %%; ns-3 %d steps, %llu events, %llu drops, %llu ECN marks\n",
      name, f_ids.size(), bytes / kMiB, static_cast<double>(f_end) / 1e3,
      static_cast<double>(p_end) / 1e3,
      100 * (static_cast<double>(p_end) / static_cast<double>(f_end) - 1), 100 * worst, steps,
      static_cast<unsigned long long>(stats.events), static_cast<unsigned long long>(stats.drops),
      static_cast<unsigned long long>(stats.ecn_marks));
  EXPECT_NEAR(static_cast<double>(p_end), static_cast<double>(f_end),
              0.15 * static_cast<double>(f_end));
}

TEST(Ns3VsFlowModel, RingOnFatTree) { compare(Ring(1), 16 * kMiB, 0, "ring, 1 channel"); }

// The second channel's ring runs on the other rail; each flow's ACKs share links with another
// channel's data.
TEST(Ns3VsFlowModel, RingWithTwoChannels) { compare(Ring(2), 8 * kMiB, 0, "ring, 2 channels"); }

// Static ECMP puts a flow on two links that each carry another flow (a parking lot): max-min
// gives all three half a link, TCP gives the two-bottleneck flow less while the others run, so
// they finish about 20 % sooner. The ring's time, set by the last flow, still agrees.
TEST(Ns3VsFlowModel, StaticEcmpCollisions) {
  compare(Ring(1, false), 16 * kMiB, 0, "GPU g to g + 1, static ECMP", 0.25);
}

// Seer's collectives cap each flow at the rate NCCL would reach on an idle network.
TEST(Ns3VsFlowModel, RingWithNcclLikeRateCaps) {
  compare(Ring(1), 16 * kMiB, 0.9 * 50e9, "ring, capped at 45 GB/s");
}

}  // namespace
}  // namespace seer::net
