// A from-scratch max-min solver for tests: slow, obvious, independent of the library's solver.
#pragma once

#include <algorithm>
#include <limits>
#include <map>
#include <vector>

#include "seer/netsim/topology.h"

namespace seer::net {

struct ReferenceFlow {
  std::vector<LinkId> links;
  double cap;
  double weight = 1;
};

// Textbook progressive filling over every flow: raise the level of all unfixed flows together
// (a flow's rate is level x weight); fix the flows of the first link to fill up (or the first
// flow to reach its cap).
inline std::map<FlowId, double> reference_rates(const Topology& topology,
                                                const std::map<FlowId, ReferenceFlow>& flows) {
  std::map<FlowId, double> rate;
  std::vector<double> remaining(topology.link_count());
  for (LinkId id = 0; id < topology.link_count(); ++id) remaining[id] = topology.link(id).bandwidth;
  while (rate.size() < flows.size()) {
    std::vector<double> unfixed(topology.link_count(), 0);
    for (const auto& [id, flow] : flows) {
      if (rate.count(id)) continue;
      for (LinkId link : flow.links) unfixed[link] += flow.weight;
    }
    double level = std::numeric_limits<double>::infinity();
    for (LinkId id = 0; id < topology.link_count(); ++id) {
      if (unfixed[id] > 0) level = std::min(level, remaining[id] / unfixed[id]);
    }
    for (const auto& [id, flow] : flows) {
      if (!rate.count(id)) level = std::min(level, flow.cap / flow.weight);
    }
    std::vector<FlowId> fixed;
    for (const auto& [id, flow] : flows) {
      if (rate.count(id)) continue;
      bool binds = flow.cap / flow.weight <= level;
      for (LinkId link : flow.links) {
        binds = binds || remaining[link] / unfixed[link] <= level * (1 + 1e-12);
      }
      if (binds) fixed.push_back(id);
    }
    for (FlowId id : fixed) {
      const double r = level * flows.at(id).weight;
      rate[id] = r;
      for (LinkId link : flows.at(id).links) remaining[link] -= r;
    }
  }
  return rate;
}

}  // namespace seer::net
