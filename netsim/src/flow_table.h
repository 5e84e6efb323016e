#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "seer/netsim/types.h"

namespace seer::net::detail {

enum class FlowPhase : std::uint8_t {
  Free,     // slot unused
  Waiting,  // paying its path latency; uses no bandwidth
  Sharing,  // on its links, with a max-min fair rate
};

// One link a flow crosses, and where the flow sits in that link's list of flows.
struct Hop {
  LinkId link;
  std::uint32_t position;
};

// A flow on a shadowed link: the flow's slot and which of its shadow hops this link is.
struct ShadowEntry {
  std::uint32_t flow;
  std::uint32_t hop;
};

// Fields the solver touches come first, so they share a cache line. The solver keeps its own
// per-flow bookkeeping in a dense array (MaxMinSolver), so flows it only glances at stay untouched.
struct alignas(64) FlowRecord {
  std::vector<Hop> hops;  // the links the solver sees (position: in LinkRecord::flows)
  double rate_cap = std::numeric_limits<double>::infinity();
  double weight = 1;       // shares of a link's bandwidth it counts for (k parallel flows: k)
  double solved_rate = 0;  // solver output
  FlowId id = 0;
  FlowPhase phase = FlowPhase::Free;
  double rate = 0;        // bytes per second, 0 unless Sharing
  double bytes_left = 0;  // as of `updated_at`; progress since then is rate * elapsed
  Time updated_at = 0;
  std::vector<Hop> shadow_hops;  // links that cannot bind it (position: in LinkRecord::shadow)
  std::vector<LinkId> path;      // every link, in travel order, until it joins them
};

// A flow on a link: the flow's slot, which of its hops this link is, and copies of its weight and
// its level = rate / weight (infinity until its first solve), so scanning a link does not touch
// every flow record. Max-min fairness is over levels: a flow of weight k gets k fair shares.
struct LinkEntry {
  std::uint32_t flow;
  std::uint32_t hop;
  double level;
  double weight;
  double rate() const { return level * weight; }
};

// How the solver treats a link (flow_model.cpp, "Shadowed links").
enum class LinkMode : std::uint8_t {
  Open,      // solved while it carries flows; may be shadowed when it next carries none
  Shadowed,  // every flow on it also crosses `dominator`, whose capacity is no larger: never binds
  Pinned,    // always solved: another link's dominator, or a shadow a flow broke
};

struct LinkRecord {
  std::vector<LinkEntry> flows;  // what the solver sees
  std::vector<ShadowEntry> shadow;
  double capacity = 0;
  LinkId dominator = -1;
  LinkMode mode = LinkMode::Open;
};

}  // namespace seer::net::detail
