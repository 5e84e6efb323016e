#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "flow_table.h"
#include "level_queue.h"

namespace seer::net::detail {

// Weighted max-min fair rates by progressive filling, re-solving only what a change affects.
// Filling raises levels (rate / weight), so a flow of weight k gets k fair shares of a link.
//
// After flows arrive or leave, the filling is the same as before up to the lowest level among
// the changed flows; the solver starts there (the restart level, README.md) and re-runs the
// filling only on the links it has to look at ("active" links): the links of arriving and leaving
// flows, then the links of every flow whose level turns out to change. On an active link, flows
// not looked at yet are "held": each behaves as if capped at its old level, which is where it
// freezes unless an active link binds it lower (its level changed: its other links become active)
// or the link that bound it before is active and has room left at that level (it is released to
// rise, and its links become active). What the filling does not reach keeps its level, so the
// work follows the flows that change and the links they cross, not the size of the network.
//
// With a tolerance t > 0, a held flow bound lower by less than t of its level takes the lower
// level but its other links do not become active (the rate it gave up becomes their slack; a link
// whose slack reaches t of its average share does become active), and a held flow is released only
// if its old bottleneck has room for more than t above its level: small changes stop spreading.
class MaxMinSolver {
 public:
  // `left_links`: links that flows left since the last solve; `left_min_level`: the lowest level
  // (rate / weight) among those flows (infinity when none left). `arrivals`: slots of flows that
  // joined (infinite level in their link entries). Writes the new levels into the link entries and
  // `solved_rate` of the flows whose rate changed, and returns their slots (arrivals always);
  // their `rate` is still the old one, for the caller to account the progress made at it.
  std::span<const std::uint32_t> solve(std::vector<FlowRecord>& flows,
                                       std::vector<LinkRecord>& links,
                                       std::span<const LinkId> left_links, double left_min_level,
                                       std::span<const std::uint32_t> arrivals, double tolerance);

  // Flows the last solve looked at (changed or not).
  std::size_t solved_count() const { return local_flows_.size(); }

 private:
  enum class Role : std::uint8_t {
    Free,    // level to be found
    Held,    // keeps its old level unless bound lower or released
    Frozen,  // level found in this solve
  };
  static constexpr std::uint32_t kNone = 0xffffffffu;

  // Kept across solves, by flow slot and by link.
  struct FlowState {
    std::uint32_t mark = 0;  // == mark_: looked at in this solve, as local_flows_[local]
    std::uint32_t local = 0;
    LinkId bottleneck = -1;  // the link that bound it (-1: its cap)
  };
  struct LinkState {
    std::uint32_t mark = 0;  // == mark_: active in this solve, as local_links_[local]
    std::uint32_t local = 0;
    double slack = 0;  // rate its flows gave up, below the tolerance, since it was last active
  };
  // Per solve.
  struct LocalFlow {
    std::uint32_t slot;
    std::uint32_t links;  // head of its active links in link_refs_
    Role role;
    bool entries_stale;  // its link entries do not hold its level (arrival, released)
    LinkId bottleneck;
    double weight;
    double old_level;  // infinity for arrivals
    double level;
  };
  struct LocalLink {
    LinkId id;
    std::uint32_t unfrozen;  // flow hops on it not frozen yet
    std::uint32_t first;     // its unfrozen flows at activation, in adjacency_
    std::uint32_t count;
    double remaining;  // capacity minus the rates of the frozen flows
    double unfrozen_weight;
  };
  struct LinkRef {  // one active link of a local flow, in a list per flow
    std::uint32_t link;
    std::uint32_t next;
  };

  // A level below which no level can change: the lowest level among the flows that left, and a
  // lower bound on the new level of every arriving flow (its cap / weight, and on each of its
  // links the fill_level), since the filling is the same as before up to the first changed level.
  double restart_level(const std::vector<FlowRecord>& flows, const std::vector<LinkRecord>& links,
                       double left_min_level, std::span<const std::uint32_t> arrivals);
  // The level at which the link fills if flows with old levels below it keep them and the others
  // (arrivals included) share the rest by weight.
  double fill_level(const LinkRecord& link);

  void reset(std::size_t flow_slots, std::size_t link_count);
  std::uint32_t add_flow(std::uint32_t slot, Role role, double weight, double old_level);
  // Makes a link active at the current level: flows below it are fixed load, the others not yet
  // looked at are held at their old levels.
  void activate_link(std::vector<LinkRecord>& links, LinkId id);
  void activate_links_of(const std::vector<FlowRecord>& flows, std::vector<LinkRecord>& links,
                         std::uint32_t local);
  void fill(std::vector<FlowRecord>& flows, std::vector<LinkRecord>& links);
  // True when a held flow's old bottleneck is active and has room above `level`, and every active
  // link it crosses counts it as sharing (not as fixed load).
  bool released(const std::vector<FlowRecord>& flows, const LocalFlow& flow, double level) const;
  void release(const std::vector<FlowRecord>& flows, std::vector<LinkRecord>& links,
               std::uint32_t local);
  void freeze(const std::vector<FlowRecord>& flows, std::vector<LinkRecord>& links,
              std::uint32_t local, double level, LinkId by);
  static void set_entries(const FlowRecord& record, std::vector<LinkRecord>& links, double level);
  static bool changed(const LocalFlow& flow);
  void commit(std::vector<FlowRecord>& flows);

  std::uint32_t mark_ = 0;
  double tolerance_ = 0;
  double margin_ = 0;  // relative: flows this close below the level are looked at too
  double level_ = 0;   // the filling's current level
  std::vector<FlowState> flow_state_;
  std::vector<LinkState> link_state_;
  std::vector<LocalFlow> local_flows_;
  std::vector<LocalLink> local_links_;
  std::vector<std::uint32_t> adjacency_;  // local flows, by link
  std::vector<LinkRef> link_refs_;
  // Levels at which flows freeze unless a link binds them first (caps, held levels), by flow.
  LevelQueue limits_;
  LevelQueue shares_;  // active links by fair share
  std::vector<std::uint32_t> changed_flows_;
  std::vector<std::uint32_t> link_seen_;  // restart_level: == seen_mark_ when looked at
  std::uint32_t seen_mark_ = 0;
  std::vector<std::pair<double, double>> old_levels_;  // scratch for fill_level: level, weight
};

}  // namespace seer::net::detail
