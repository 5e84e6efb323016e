#include "max_min_solver.h"

#include <algorithm>
#include <limits>

namespace seer::net::detail {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Flows this close below the restart level are re-solved too, so rounding in earlier solves can
// never leave a flow fixed that an exact solve would move.
constexpr double kRestartMargin = 1e-9;

}  // namespace

std::span<const std::uint32_t> MaxMinSolver::solve(std::vector<FlowRecord>& flows,
                                                   std::vector<LinkRecord>& links,
                                                   std::span<const LinkId> left_links,
                                                   double left_min_level,
                                                   std::span<const std::uint32_t> arrivals) {
  keep_below_ = restart_level(flows, links, left_min_level, arrivals) * (1 - kRestartMargin);
  collect(flows, links, left_links, arrivals);
  fill(flows, links);
  return solved_flows_;
}

double MaxMinSolver::restart_level(const std::vector<FlowRecord>& flows,
                                   const std::vector<LinkRecord>& links, double left_min_level,
                                   std::span<const std::uint32_t> arrivals) {
  double level = left_min_level;
  arrival_links_.clear();
  for (std::uint32_t slot : arrivals) {
    level = std::min(level, flows[slot].rate_cap / flows[slot].weight);
    for (const Hop& hop : flows[slot].hops) arrival_links_.push_back(hop.link);
  }
  std::sort(arrival_links_.begin(), arrival_links_.end());
  arrival_links_.erase(std::unique(arrival_links_.begin(), arrival_links_.end()),
                       arrival_links_.end());
  for (LinkId id : arrival_links_) level = std::min(level, fill_level(links[id]));
  return level;
}

double MaxMinSolver::fill_level(const LinkRecord& link) {
  old_levels_.clear();
  double total_weight = 0;
  for (const LinkEntry& entry : link.flows) {
    total_weight += entry.weight;
    if (entry.level < kInfinity) old_levels_.emplace_back(entry.level, entry.weight);
  }
  std::sort(old_levels_.begin(), old_levels_.end());
  // The j lowest old levels stay fixed while the rest (new flows included) share what they leave.
  double fixed = 0;
  double fixed_weight = 0;
  double level = kInfinity;
  for (std::size_t j = 0; j <= old_levels_.size(); ++j) {
    const double weight = total_weight - fixed_weight;
    level = weight > 0 ? (link.capacity - fixed) / weight : kInfinity;
    if (j == old_levels_.size() || level <= old_levels_[j].first) break;
    fixed += old_levels_[j].first * old_levels_[j].second;
    fixed_weight += old_levels_[j].second;
  }
  return level;
}

void MaxMinSolver::collect(std::vector<FlowRecord>& flows, std::vector<LinkRecord>& links,
                           std::span<const LinkId> left_links,
                           std::span<const std::uint32_t> arrivals) {
  if (mark_ >= std::numeric_limits<std::uint32_t>::max() - 4) {
    for (FlowRecord& flow : flows) flow.visit_mark = 0;
    for (LinkRecord& link : links) link.visit_mark = 0;
    mark_ = 0;
  }
  mark_ += 2;
  solved_flows_.clear();
  visited_links_.clear();

  auto visit_link = [&](LinkId id) {
    if (links[id].visit_mark == mark_) return;
    links[id].visit_mark = mark_;
    visited_links_.push_back(id);
  };
  auto visit_flow = [&](std::uint32_t slot) {
    FlowRecord& flow = flows[slot];
    if (flow.visit_mark == mark_) return;
    flow.visit_mark = mark_;
    solved_flows_.push_back(slot);
    for (const Hop& hop : flow.hops) visit_link(hop.link);
  };

  for (LinkId id : left_links) visit_link(id);
  for (std::uint32_t slot : arrivals) visit_flow(slot);
  // visited_links_ doubles as the breadth-first queue. Each link is scanned once: flows below
  // keep_below_ become its fixed load, the others join the re-solve.
  for (std::size_t next = 0; next < visited_links_.size(); ++next) {
    LinkRecord& link = links[visited_links_[next]];
    double fixed_load = 0;
    std::uint32_t growing = 0;
    double growing_weight = 0;
    for (const LinkEntry& entry : link.flows) {
      if (entry.level < keep_below_) {
        fixed_load += entry.rate();
      } else {
        ++growing;
        growing_weight += entry.weight;
        visit_flow(entry.flow);
      }
    }
    link.remaining = link.capacity - fixed_load;
    link.unfrozen = growing;
    link.unfrozen_weight = growing_weight;
  }
}

void MaxMinSolver::freeze(FlowRecord& flow, double level, std::vector<LinkRecord>& links) {
  const double rate = level * flow.weight;
  flow.solved_rate = rate;
  flow.visit_mark = mark_ + 1;
  for (const Hop& hop : flow.hops) {
    LinkRecord& link = links[hop.link];
    link.remaining -= rate;
    --link.unfrozen;
    link.unfrozen_weight = link.unfrozen > 0 ? link.unfrozen_weight - flow.weight : 0;
    link.flows[hop.position].level = level;
  }
}

// Progressive filling over the collected flows: the first limit reached (a link whose remaining
// capacity is used up, or a flow's own cap) fixes the flows it binds at that level. A link's fair
// share remaining/unfrozen only grows as flows elsewhere get fixed below it, so a queued share
// that went stale is just raised to the current one when it reaches the top.
void MaxMinSolver::fill(std::vector<FlowRecord>& flows, std::vector<LinkRecord>& links) {
  shares_.clear();
  for (LinkId id : visited_links_) {
    const LinkRecord& link = links[id];
    if (link.unfrozen > 0) shares_.push(link.remaining / link.unfrozen_weight, id);
  }

  capped_.clear();
  for (std::uint32_t slot : solved_flows_) {
    const FlowRecord& flow = flows[slot];
    if (flow.rate_cap < kInfinity)
      capped_.push_back(CappedFlow{flow.rate_cap / flow.weight, flow.id, slot});
  }
  std::sort(capped_.begin(), capped_.end(), [](const CappedFlow& a, const CappedFlow& b) {
    return a.cap != b.cap ? a.cap < b.cap : a.id < b.id;
  });

  std::size_t unfixed = solved_flows_.size();
  std::size_t next_capped = 0;
  while (unfixed > 0) {
    while (next_capped < capped_.size() && frozen(flows[capped_[next_capped].slot])) ++next_capped;

    double share = kInfinity;
    LinkId bottleneck = -1;
    while (!shares_.empty()) {
      const auto [queued_share, id] = shares_.top();
      const LinkRecord& link = links[id];
      if (link.unfrozen == 0) {
        shares_.pop();
        continue;
      }
      const double current = std::max(0.0, link.remaining / link.unfrozen_weight);
      if (current > queued_share) {
        shares_.raise_top(current);
        continue;
      }
      share = current;
      bottleneck = id;
      break;
    }

    if (next_capped < capped_.size() && capped_[next_capped].cap <= share) {
      freeze(flows[capped_[next_capped].slot], capped_[next_capped].cap, links);
      --unfixed;
      continue;
    }
    if (bottleneck < 0) break;  // only flows without links and without a cap: nothing binds them
    for (const LinkEntry& entry : links[bottleneck].flows) {
      if (entry.level < keep_below_) continue;  // kept at its old level (or fixed just now)
      FlowRecord& flow = flows[entry.flow];
      if (flow.visit_mark != mark_) continue;  // fixed earlier in this fill
      freeze(flow, share, links);
      --unfixed;
    }
  }
}

}  // namespace seer::net::detail
