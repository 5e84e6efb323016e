// The incremental solver against a from-scratch max-min solution, over random arrivals and
// departures on random overlapping paths.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <vector>

#include "reference_max_min.h"
#include "seer/netsim/cluster_fabric.h"
#include "seer/netsim/flow_model.h"
#include "seer/netsim/router.h"

namespace seer::net {
namespace {

// Random arrivals, departures and cancellations; with `weighted`, flows get weights 1-8 (a weight-k
// flow stands for k parallel flows).
void check_incremental_against_full_solve(bool weighted) {
  std::mt19937_64 random(20240611);
  Topology topology;
  std::vector<NodeId> nodes;
  for (int i = 0; i < 8; ++i) nodes.push_back(topology.add_node(NodeKind::LeafSwitch, "s"));
  for (int i = 0; i < 14; ++i) {
    const double gbps = 1 + static_cast<double>(random() % 40);
    topology.add_link(nodes[i % 8], nodes[(i + 1 + i / 8) % 8], gbps * 1e9, 0);
  }
  FlowModel model(topology);
  std::map<FlowId, ReferenceFlow> active;
  int checks = 0;
  Time now = 0;
  for (int step = 0; step < 400; ++step) {
    // Start 0-3 flows on 1-3 random distinct links, a quarter of them capped.
    const int arrivals = static_cast<int>(random() % 4);
    std::vector<std::pair<FlowId, ReferenceFlow>> started;
    for (int i = 0; i < arrivals; ++i) {
      Path path;
      const int length = 1 + static_cast<int>(random() % 3);
      while (static_cast<int>(path.links.size()) < length) {
        const auto link = static_cast<LinkId>(random() % topology.link_count());
        if (std::find(path.links.begin(), path.links.end(), link) == path.links.end()) {
          path.links.push_back(link);
        }
      }
      const double bytes = 1e6 * static_cast<double>(1 + random() % 100);
      const double cap =
          random() % 4 == 0 ? 1e9 * static_cast<double>(1 + random() % 10) : kUnlimitedRate;
      const double weight = weighted ? static_cast<double>(1 + random() % 8) : 1.0;
      started.push_back({model.start_flow(now, path, bytes, cap, weight),
                         ReferenceFlow{path.links, cap, weight}});
    }
    for (const auto& [id, flow] : started) active[id] = flow;
    // Every activation or completion changes the sharing: compare all rates after each one.
    const Time until = now + static_cast<Time>(random() % 2'000'000);
    while (model.next_event_time() && *model.next_event_time() <= until) {
      for (FlowId done : model.advance_to(*model.next_event_time())) active.erase(done);
      for (const auto& [id, rate] : reference_rates(topology, active)) {
        ASSERT_NEAR(model.flow_rate(id), rate, rate * 1e-9) << "flow " << id << " step " << step;
      }
      ++checks;
    }
    model.advance_to(until);
    now = until;
    // Now and then cancel the oldest flow.
    if (step % 17 == 0 && !active.empty()) {
      ASSERT_TRUE(model.cancel_flow(now, active.begin()->first));
      active.erase(active.begin());
    }
  }
  EXPECT_GT(checks, 300);
  EXPECT_EQ(model.active_flow_count(), static_cast<int>(active.size()));
}

TEST(MaxMinReference, IncrementalRatesMatchAFullSolveAtEveryEvent) {
  check_incremental_against_full_solve(false);
}

TEST(MaxMinReference, WeightedIncrementalRatesMatchAFullSolveAtEveryEvent) {
  check_incremental_against_full_solve(true);
}

TEST(MaxMinReference, FatTreeWithLatenciesAndBatchesMatchesAFullSolve) {
  // 16 nodes x 4 GPUs, 4 rail NICs, 2:1 oversubscribed leaves so fabric links bind too. Flows
  // between random GPUs start in bursts (several at one instant) and join after their latency.
  ClusterShape shape;
  shape.nodes = 16;
  shape.gpus_per_node = 4;
  shape.nvlink_bw_per_gpu = 300e9;
  shape.nvswitch_latency = 700;
  shape.pcie_bw = 32e9;
  shape.pcie_latency = 400;
  shape.nics_per_node = 4;
  shape.nic_bw = 25e9;
  shape.nic_latency = 1000;
  shape.hosts_per_leaf = 4;
  shape.oversubscription = 2;
  shape.switch_hop_latency = 150;
  const ClusterFabric fabric(shape);
  Router router(fabric.topology());
  FlowModel model(fabric.topology());
  std::mt19937_64 random(99);

  std::map<FlowId, ReferenceFlow> sharing;
  std::map<FlowId, std::pair<Time, ReferenceFlow>> waiting;  // id -> (activation time, flow)
  int checks = 0;
  Time now = 0;
  for (int burst = 0; burst < 150; ++burst) {
    const int flows = 1 + static_cast<int>(random() % 6);
    for (int i = 0; i < flows; ++i) {
      const int src = static_cast<int>(random() % fabric.gpu_count());
      const int dst = static_cast<int>(random() % fabric.gpu_count());
      if (src == dst) continue;
      const Path& path = router.route(fabric.gpu(src), fabric.gpu(dst), random());
      const double cap = random() % 5 == 0 ? 5e9 : kUnlimitedRate;
      const FlowId id =
          model.start_flow(now, path, 1e5 * static_cast<double>(1 + random() % 200), cap);
      waiting[id] = {now + path.latency, ReferenceFlow{path.links, cap}};
    }
    const Time until = now + static_cast<Time>(random() % 40'000);
    while (model.next_event_time() && *model.next_event_time() <= until) {
      const Time at = *model.next_event_time();
      for (FlowId done : model.advance_to(at)) {
        sharing.erase(done);
        waiting.erase(done);
      }
      for (auto it = waiting.begin(); it != waiting.end();) {
        if (it->second.first > at) {
          ++it;
          continue;
        }
        sharing[it->first] = it->second.second;
        it = waiting.erase(it);
      }
      for (const auto& [id, rate] : reference_rates(fabric.topology(), sharing)) {
        ASSERT_NEAR(model.flow_rate(id), rate, rate * 1e-9) << "flow " << id << " at " << at;
      }
      ++checks;
    }
    model.advance_to(until);
    now = until;
  }
  EXPECT_GT(checks, 200);
  EXPECT_EQ(model.active_flow_count(), static_cast<int>(sharing.size()));
}

}  // namespace
}  // namespace seer::net
