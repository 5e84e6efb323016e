#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "flow_table.h"
#include "share_queue.h"

namespace seer::net::detail {

// Weighted max-min fair rates by progressive filling, re-solving only what a change can affect.
// Filling raises levels (rate / weight), so a flow of weight k gets k fair shares of a link.
//
// Progressive filling raises all rates together and fixes a flow when one of its links fills up.
// After flows leave (old rates r_g) and others arrive, the filling is the same as before up to the
// lowest rate among the changed flows, so every flow whose old rate is below a lower bound of
// that level keeps its rate (see README.md). Only the flows at or above the bound that are
// connected to the changed ones through shared links are solved again; the flows below it only
// contribute their fixed load to the links they share.
class MaxMinSolver {
 public:
  // `left_links`: links that flows left since the last solve; `left_min_level`: the lowest level
  // (rate / weight) among those flows (infinity when none left). `arrivals`: slots of flows that
  // joined (their link entries have an infinite rate). Writes `solved_rate` of every re-solved
  // flow, and the rate in its link entries, and returns their slots.
  std::span<const std::uint32_t> solve(std::vector<FlowRecord>& flows,
                                       std::vector<LinkRecord>& links,
                                       std::span<const LinkId> left_links, double left_min_level,
                                       std::span<const std::uint32_t> arrivals);

 private:
  // A level below which no level can change: the lowest level among the flows that left, and a
  // lower bound on the new level of every arriving flow (its cap / weight, and on each of its
  // links the fill_level), since the filling is the same as before up to the first changed level.
  double restart_level(const std::vector<FlowRecord>& flows, const std::vector<LinkRecord>& links,
                       double left_min_level, std::span<const std::uint32_t> arrivals);
  // The level at which the link fills if flows with old levels below it keep them and the others
  // (arrivals included) share the rest by weight.
  double fill_level(const LinkRecord& link);
  void collect(std::vector<FlowRecord>& flows, std::vector<LinkRecord>& links,
               std::span<const LinkId> left_links, std::span<const std::uint32_t> arrivals);
  void fill(std::vector<FlowRecord>& flows, std::vector<LinkRecord>& links);
  void freeze(FlowRecord& flow, double level, std::vector<LinkRecord>& links);

  struct CappedFlow {
    double cap;  // as a level: rate cap / weight
    FlowId id;
    std::uint32_t slot;
  };

  // Flow marks: `mark_` = being re-solved, `mark_ + 1` = rate fixed. Link marks: visited.
  bool frozen(const FlowRecord& flow) const { return flow.visit_mark == mark_ + 1; }

  std::uint32_t mark_ = 0;
  double keep_below_ = 0;  // flows with a lower old level keep it
  std::vector<std::uint32_t> solved_flows_;
  std::vector<LinkId> visited_links_;
  std::vector<CappedFlow> capped_;  // ascending (cap, id)
  ShareQueue shares_;
  std::vector<LinkId> arrival_links_;                  // scratch for restart_level
  std::vector<std::pair<double, double>> old_levels_;  // scratch for fill_level: level, weight
};

}  // namespace seer::net::detail
