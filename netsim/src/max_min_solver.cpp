#include "max_min_solver.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace seer::net::detail {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Flows this close below the restart level are re-solved too, so rounding in earlier solves can
// never leave a flow fixed that an exact solve would move.
constexpr double kRestartMargin = 1e-9;

// A level this close to the old one is floating-point noise (a sum taken in another order), not a
// change: the flow keeps its level and its completion event, and its links stay as they are.
constexpr double kNoise = 1e-12;

// With a tolerance t, levels may sit up to about t off the exact ones, so the restart level and
// the fixed load of newly active links leave this many t of margin: a flow whose level is a little
// off is still looked at rather than taken as settled.
constexpr double kMarginPerTolerance = 1;

}  // namespace

std::span<const std::uint32_t> MaxMinSolver::solve(std::vector<FlowRecord>& flows,
                                                   std::vector<LinkRecord>& links,
                                                   std::span<const LinkId> left_links,
                                                   double left_min_level,
                                                   std::span<const std::uint32_t> arrivals,
                                                   double tolerance) {
  tolerance_ = std::max(tolerance, kNoise);
  margin_ = kMarginPerTolerance * tolerance_;
  level_ = restart_level(flows, links, left_min_level, arrivals) *
           (1 - std::max(kRestartMargin, margin_));
  reset(flows.size(), links.size());
  for (std::uint32_t slot : arrivals) {
    const FlowRecord& flow = flows[slot];
    const std::uint32_t local = add_flow(slot, Role::Free, flow.weight, kInfinity);
    if (flow.rate_cap < kInfinity) limits_.push(flow.rate_cap / flow.weight, local);
  }
  const auto arrived = static_cast<std::uint32_t>(local_flows_.size());
  for (std::uint32_t local = 0; local < arrived; ++local) activate_links_of(flows, links, local);
  for (LinkId id : left_links) activate_link(links, id);
  fill(flows, links);
  commit(flows);
  return changed_flows_;
}

double MaxMinSolver::restart_level(const std::vector<FlowRecord>& flows,
                                   const std::vector<LinkRecord>& links, double left_min_level,
                                   std::span<const std::uint32_t> arrivals) {
  double level = left_min_level;
  if (arrivals.empty()) return level;
  if (link_seen_.size() < links.size()) link_seen_.resize(links.size(), 0);
  if (++seen_mark_ == 0) {
    std::fill(link_seen_.begin(), link_seen_.end(), 0);
    seen_mark_ = 1;
  }
  for (std::uint32_t slot : arrivals) {
    level = std::min(level, flows[slot].rate_cap / flows[slot].weight);
    for (const Hop& hop : flows[slot].hops) {
      if (link_seen_[hop.link] == seen_mark_) continue;
      link_seen_[hop.link] = seen_mark_;
      level = std::min(level, fill_level(links[hop.link]));
    }
  }
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

void MaxMinSolver::reset(std::size_t flow_slots, std::size_t link_count) {
  if (flow_state_.size() < flow_slots) flow_state_.resize(flow_slots);
  if (link_state_.size() < link_count) link_state_.resize(link_count);
  if (mark_ == std::numeric_limits<std::uint32_t>::max()) {
    for (FlowState& flow : flow_state_) flow.mark = 0;
    for (LinkState& link : link_state_) link.mark = 0;
    mark_ = 0;
  }
  ++mark_;
  local_flows_.clear();
  local_links_.clear();
  adjacency_.clear();
  link_refs_.clear();
  limits_.clear();
  shares_.clear();
}

std::uint32_t MaxMinSolver::add_flow(std::uint32_t slot, Role role, double weight,
                                     double old_level) {
  FlowState& state = flow_state_[slot];
  state.mark = mark_;
  state.local = static_cast<std::uint32_t>(local_flows_.size());
  local_flows_.push_back(LocalFlow{slot, kNone, role, old_level == kInfinity, state.bottleneck,
                                   weight, old_level, kInfinity});
  return state.local;
}

void MaxMinSolver::activate_link(std::vector<LinkRecord>& links, LinkId id) {
  LinkState& state = link_state_[id];
  if (state.mark == mark_) return;
  state.mark = mark_;
  state.slack = 0;
  state.local = static_cast<std::uint32_t>(local_links_.size());
  const LinkRecord& link = links[id];
  LocalLink local{id, 0, static_cast<std::uint32_t>(adjacency_.size()), 0, link.capacity, 0};
  const double fixed_below = level_ * (1 - margin_);
  for (const LinkEntry& entry : link.flows) {
    // Entries below the current level hold final levels: old ones of flows not looked at (unless
    // this link bound them: it may have room for them now), new ones of flows frozen in this solve.
    // A flow looked at but not frozen yet (held, or free) shares this link whatever its entry
    // says: its level may still change, and every link it crosses must see that. (Counting it as
    // fixed load here let it rise past this link's capacity when it was released later, e.g. the
    // second entry of a flow crossing the link twice, or a held flow added by another link.)
    const FlowState& flow = flow_state_[entry.flow];
    std::uint32_t f = flow.local;
    if (flow.mark == mark_) {
      if (local_flows_[f].role == Role::Frozen) {
        local.remaining -=
            entry.level < fixed_below ? entry.rate() : local_flows_[f].level * entry.weight;
        continue;
      }
    } else if (entry.level < fixed_below && flow.bottleneck != id) {
      local.remaining -= entry.rate();
      continue;
    } else {
      f = add_flow(entry.flow, Role::Held, entry.weight, entry.level);
      limits_.push(entry.level, f);
    }
    ++local.unfrozen;
    local.unfrozen_weight += entry.weight;
    adjacency_.push_back(f);
    link_refs_.push_back(LinkRef{state.local, local_flows_[f].links});
    local_flows_[f].links = static_cast<std::uint32_t>(link_refs_.size() - 1);
  }
  local.count = local.unfrozen;
  local_links_.push_back(local);
  if (local.unfrozen > 0) shares_.push(local.remaining / local.unfrozen_weight, state.local);
}

void MaxMinSolver::activate_links_of(const std::vector<FlowRecord>& flows,
                                     std::vector<LinkRecord>& links, std::uint32_t local) {
  for (const Hop& hop : flows[local_flows_[local].slot].hops) activate_link(links, hop.link);
}

bool MaxMinSolver::released(const std::vector<FlowRecord>& flows, const LocalFlow& flow,
                            double level) const {
  if (flow.bottleneck < 0) return false;  // held by its own cap
  const LinkState& state = link_state_[flow.bottleneck];
  if (state.mark != mark_) return false;  // not active: binds as before
  const LocalLink& link = local_links_[state.local];
  if (!(link.unfrozen > 0 && link.remaining / link.unfrozen_weight > level * (1 + tolerance_))) {
    return false;
  }
  // An active link that took the flow's old rate as fixed load (it was below the level there and
  // bound elsewhere) would not see it rise: it stays. With exact levels this cannot happen (a link
  // with room above a flow's level is not its bottleneck); with a tolerance or rounding it can.
  std::size_t active_hops = 0;
  for (const Hop& hop : flows[flow.slot].hops) active_hops += link_state_[hop.link].mark == mark_;
  std::size_t shared = 0;
  for (std::uint32_t ref = flow.links; ref != kNone; ref = link_refs_[ref].next) ++shared;
  return shared == active_hops;
}

// Its old bottleneck has room: the flow rises with the free ones, constrained by all its links.
void MaxMinSolver::release(const std::vector<FlowRecord>& flows, std::vector<LinkRecord>& links,
                           std::uint32_t local) {
  LocalFlow& flow = local_flows_[local];
  flow.role = Role::Free;
  flow.entries_stale = true;
  const FlowRecord& record = flows[flow.slot];
  set_entries(record, links, kInfinity);
  if (record.rate_cap < kInfinity) limits_.push(record.rate_cap / record.weight, local);
  activate_links_of(flows, links, local);
}

void MaxMinSolver::set_entries(const FlowRecord& record, std::vector<LinkRecord>& links,
                               double level) {
  for (const Hop& hop : record.hops) links[hop.link].flows[hop.position].level = level;
}

void MaxMinSolver::freeze(const std::vector<FlowRecord>& flows, std::vector<LinkRecord>& links,
                          std::uint32_t local, double level, LinkId by) {
  LocalFlow& flow = local_flows_[local];
  const Role was = flow.role;
  flow.role = Role::Frozen;
  flow.level = level;
  if (by >= 0 || was == Role::Free) flow.bottleneck = by;  // a held flow keeps what held it
  const double rate = level * flow.weight;
  for (std::uint32_t ref = flow.links; ref != kNone; ref = link_refs_[ref].next) {
    LocalLink& link = local_links_[link_refs_[ref].link];
    link.remaining -= rate;
    --link.unfrozen;
    link.unfrozen_weight = link.unfrozen > 0 ? link.unfrozen_weight - flow.weight : 0;
  }
  if (!changed(flow) && !flow.entries_stale) return;
  flow.entries_stale = false;
  set_entries(flows[flow.slot], links, level);
  if (was != Role::Held) return;
  // A held flow bound below its old level: its other links carry less now. A small change only
  // adds to their slack, until that is worth a re-solve.
  if (flow.old_level - level > tolerance_ * flow.old_level) {
    activate_links_of(flows, links, local);
    return;
  }
  const double given_up = (flow.old_level - level) * flow.weight;
  for (const Hop& hop : flows[flow.slot].hops) {
    LinkState& state = link_state_[hop.link];
    if (state.mark == mark_) continue;
    state.slack += given_up;
    const LinkRecord& link = links[hop.link];
    if (state.slack * static_cast<double>(link.flows.size()) > tolerance_ * link.capacity) {
      activate_link(links, hop.link);
    }
  }
}

bool MaxMinSolver::changed(const LocalFlow& flow) {
  return flow.old_level == kInfinity ||
         std::abs(flow.level - flow.old_level) > kNoise * flow.old_level;
}

// Progressive filling from the restart level: the lowest of the active links' fair shares and the
// flows' limits (caps, held levels) is the next level at which something freezes. A link's share
// remaining/unfrozen only grows as flows elsewhere freeze below it, so a queued share that went
// stale is just raised to the current one when it reaches the top.
void MaxMinSolver::fill(std::vector<FlowRecord>& flows, std::vector<LinkRecord>& links) {
  while (true) {
    while (!limits_.empty() && local_flows_[limits_.top().index].role == Role::Frozen) {
      limits_.pop();
    }
    double share = kInfinity;
    std::uint32_t bottleneck = kNone;
    while (!shares_.empty()) {
      const auto [queued_share, i] = shares_.top();
      const LocalLink& link = local_links_[i];
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
      bottleneck = i;
      break;
    }

    if (!limits_.empty() && limits_.top().level <= share) {
      const auto [level, local] = limits_.top();
      limits_.pop();
      level_ = std::max(level_, level);
      const LocalFlow& flow = local_flows_[local];
      if (flow.role == Role::Held && released(flows, flow, level)) {
        release(flows, links, local);
      } else {
        freeze(flows, links, local, level, -1);
      }
      continue;
    }
    if (bottleneck == kNone) break;  // only flows without links and without a cap: none binds
    level_ = std::max(level_, share);
    const LocalLink& link = local_links_[bottleneck];
    const LinkId id = link.id;
    const std::uint32_t first = link.first;
    const std::uint32_t end = first + link.count;
    for (std::uint32_t a = first; a < end; ++a) {
      const std::uint32_t f = adjacency_[a];
      if (local_flows_[f].role != Role::Frozen) freeze(flows, links, f, share, id);
    }
  }
}

void MaxMinSolver::commit(std::vector<FlowRecord>& flows) {
  changed_flows_.clear();
  for (const LocalFlow& local : local_flows_) {
    flow_state_[local.slot].bottleneck = local.bottleneck;
    if (!changed(local)) continue;
    flows[local.slot].solved_rate = local.level * local.weight;
    changed_flows_.push_back(local.slot);
  }
}

}  // namespace seer::net::detail
