// The incremental solver against a from-scratch max-min solution, over random arrivals and
// departures on random overlapping paths.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <vector>

#include "seer/netsim/flow_model.h"

namespace seer::net {
namespace {

struct ReferenceFlow {
  std::vector<LinkId> links;
  double cap;
};

// Textbook progressive filling over every flow: raise all unfixed flows together; fix the flows
// of the first link to fill up (or the first flow to reach its cap).
std::map<FlowId, double> reference_rates(const Topology& topology,
                                         const std::map<FlowId, ReferenceFlow>& flows) {
  std::map<FlowId, double> rate;
  std::vector<double> remaining(topology.link_count());
  for (LinkId id = 0; id < topology.link_count(); ++id) remaining[id] = topology.link(id).bandwidth;
  while (rate.size() < flows.size()) {
    std::vector<int> unfixed(topology.link_count(), 0);
    for (const auto& [id, flow] : flows) {
      if (rate.count(id)) continue;
      for (LinkId link : flow.links) ++unfixed[link];
    }
    double level = std::numeric_limits<double>::infinity();
    for (LinkId id = 0; id < topology.link_count(); ++id) {
      if (unfixed[id] > 0) level = std::min(level, remaining[id] / unfixed[id]);
    }
    for (const auto& [id, flow] : flows) {
      if (!rate.count(id)) level = std::min(level, flow.cap);
    }
    std::vector<FlowId> fixed;
    for (const auto& [id, flow] : flows) {
      if (rate.count(id)) continue;
      bool binds = flow.cap <= level;
      for (LinkId link : flow.links) {
        binds = binds || remaining[link] / unfixed[link] <= level * (1 + 1e-12);
      }
      if (binds) fixed.push_back(id);
    }
    for (FlowId id : fixed) {
      rate[id] = level;
      for (LinkId link : flows.at(id).links) remaining[link] -= level;
    }
  }
  return rate;
}

TEST(MaxMinReference, IncrementalRatesMatchAFullSolveAtEveryEvent) {
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
      const double cap = random() % 4 == 0 ? 1e9 * static_cast<double>(1 + random() % 10)
                                           : kUnlimitedRate;
      started.push_back({model.start_flow(now, path, bytes, cap), ReferenceFlow{path.links, cap}});
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

}  // namespace
}  // namespace seer::net
