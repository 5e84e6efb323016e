#pragma once

#include <vector>

#include "seer/netsim/types.h"

namespace seer::net {

// A route through a Topology: directed links in travel order and the sum of their latencies.
struct Path {
  std::vector<LinkId> links;
  Time latency = 0;

  friend bool operator==(const Path&, const Path&) = default;
};

}  // namespace seer::net
