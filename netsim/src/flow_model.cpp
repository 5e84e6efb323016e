#include "seer/netsim/flow_model.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "event_queue.h"
#include "flow_table.h"
#include "max_min_solver.h"

namespace seer::net {

using detail::EventQueue;
using detail::FlowPhase;
using detail::FlowRecord;
using detail::Hop;
using detail::LinkEntry;
using detail::LinkMode;
using detail::LinkRecord;
using detail::ShadowEntry;

namespace {

constexpr double kNsPerSecond = 1e9;

// Whole nanoseconds needed to send `bytes` at `rate`, rounded up. The relative tolerance keeps
// floating-point noise on an exact result (1e8 + 1e-8) from adding a nanosecond.
Time transfer_ns(double bytes, double rate) {
  const double ns = std::max(0.0, bytes) * kNsPerSecond / rate;
  const double rounded = std::ceil(ns * (1 - 1e-12));
  constexpr double kMax = 9.0e18;
  return rounded >= kMax ? static_cast<Time>(kMax) : static_cast<Time>(rounded);
}

}  // namespace

class FlowModel::State {
 public:
  State(const Topology& topology, FlowModelOptions options)
      : topology_(topology), tolerance_(options.tolerance), shadow_links_(options.shadow_links) {}

  FlowId start(Time now, const Path& path, double bytes, double rate_cap, double weight);
  bool cancel(Time now, FlowId id);
  std::vector<CompletedFlow> advance(Time t);

  const FlowRecord* find(FlowId id) const {
    const auto it = slot_of_.find(id);
    return it == slot_of_.end() ? nullptr : &flows_[it->second];
  }
  double utilization(LinkId id) const;
  std::optional<Time> next_event() const {
    if (events_.empty()) return std::nullopt;
    return events_.top().time;
  }

  Time now_ = 0;
  int sharing_ = 0;
  int waiting_ = 0;
  Counters counters_;

 private:
  void check_time(Time now, const char* operation) const;
  void sync_links();
  std::uint32_t allocate_slot();
  void release(std::uint32_t slot);
  void activate(std::uint32_t slot, std::vector<CompletedFlow>& done);
  void join_links(std::uint32_t slot);
  LinkId dominator_for(const std::vector<LinkId>& path, std::size_t i) const;
  void add_solved_hop(std::uint32_t slot, LinkId id, double level);
  void add_shadow_hop(std::uint32_t slot, LinkId id);
  void remove_shadow_hop(std::uint32_t slot, std::size_t hop);
  void promote(LinkId id);
  void leave_links(std::uint32_t slot);
  void resolve();
  void schedule_completion(std::uint32_t slot);

  const Topology& topology_;
  const double tolerance_;
  const bool shadow_links_;
  FlowId next_id_ = 0;
  std::vector<FlowRecord> flows_;  // by slot
  std::vector<std::uint32_t> free_slots_;
  std::unordered_map<FlowId, std::uint32_t> slot_of_;
  std::vector<LinkRecord> links_;  // by LinkId
  EventQueue events_;              // Waiting: activation time; Sharing: completion time
  detail::MaxMinSolver solver_;
  // What changed since the last solve.
  std::vector<LinkId> left_links_;          // links some flow left
  double left_min_level_ = kUnlimitedRate;  // lowest rate / weight among the flows that left
  std::vector<std::uint32_t> arrivals_;     // flows that joined
};

void FlowModel::State::check_time(Time now, const char* operation) const {
  if (now < now_) {
    throw std::invalid_argument(std::string(operation) + " at t=" + std::to_string(now) +
                                " ns is before the model's time " + std::to_string(now_) + " ns");
  }
  if (!events_.empty() && events_.top().time < now) {
    throw std::logic_error(std::string(operation) + " at t=" + std::to_string(now) +
                           " ns skips an event at " + std::to_string(events_.top().time) +
                           " ns: call advance_to first");
  }
}

void FlowModel::State::sync_links() {
  while (static_cast<int>(links_.size()) < topology_.link_count()) {
    LinkRecord record;
    record.capacity = topology_.link(static_cast<LinkId>(links_.size())).bandwidth;
    links_.push_back(std::move(record));
  }
}

std::uint32_t FlowModel::State::allocate_slot() {
  if (!free_slots_.empty()) {
    const std::uint32_t slot = free_slots_.back();
    free_slots_.pop_back();
    return slot;
  }
  flows_.emplace_back();
  return static_cast<std::uint32_t>(flows_.size() - 1);
}

void FlowModel::State::release(std::uint32_t slot) {
  FlowRecord& flow = flows_[slot];
  (flow.phase == FlowPhase::Sharing ? sharing_ : waiting_)--;
  slot_of_.erase(flow.id);
  flow.phase = FlowPhase::Free;
  flow.rate = 0;
  flow.hops.clear();  // these keep their capacity for the slot's next flow
  flow.shadow_hops.clear();
  flow.path.clear();
  free_slots_.push_back(slot);
}

FlowId FlowModel::State::start(Time now, const Path& path, double bytes, double rate_cap,
                               double weight) {
  check_time(now, "start_flow");
  sync_links();
  for (LinkId id : path.links) {
    if (id < 0 || id >= static_cast<LinkId>(links_.size())) {
      throw std::out_of_range("start_flow: path has unknown link " + std::to_string(id));
    }
  }
  if (!(bytes >= 0) || !std::isfinite(bytes)) {
    throw std::invalid_argument("start_flow: bytes must be finite and not negative, got " +
                                std::to_string(bytes));
  }
  if (!(rate_cap > 0)) {
    throw std::invalid_argument("start_flow: rate cap must be positive, got " +
                                std::to_string(rate_cap));
  }
  if (!(weight > 0) || !std::isfinite(weight)) {
    throw std::invalid_argument("start_flow: weight must be positive and finite, got " +
                                std::to_string(weight));
  }
  if (path.latency < 0) {
    throw std::invalid_argument("start_flow: path latency must not be negative, got " +
                                std::to_string(path.latency));
  }
  now_ = now;
  const std::uint32_t slot = allocate_slot();
  FlowRecord& flow = flows_[slot];
  flow.id = next_id_++;
  flow.phase = FlowPhase::Waiting;
  flow.rate_cap = rate_cap;
  flow.weight = weight;
  flow.rate = 0;
  flow.bytes_left = bytes;
  flow.updated_at = now;
  flow.path.assign(path.links.begin(), path.links.end());
  slot_of_.emplace(flow.id, slot);
  ++waiting_;
  events_.set(slot, now + path.latency, flow.id);
  return flow.id;
}

bool FlowModel::State::cancel(Time now, FlowId id) {
  check_time(now, "cancel_flow");
  now_ = now;
  const auto it = slot_of_.find(id);
  if (it == slot_of_.end()) return false;
  const std::uint32_t slot = it->second;
  events_.remove(slot);
  const bool was_sharing = flows_[slot].phase == FlowPhase::Sharing;
  if (was_sharing) leave_links(slot);
  release(slot);
  if (was_sharing) resolve();
  return true;
}

std::vector<CompletedFlow> FlowModel::State::advance(Time t) {
  if (t < now_) {
    throw std::invalid_argument("advance_to t=" + std::to_string(t) +
                                " ns is before the model's time " + std::to_string(now_) + " ns");
  }
  std::vector<CompletedFlow> done;
  while (!events_.empty() && events_.top().time <= t) {
    const Time at = events_.top().time;
    now_ = at;
    // Everything due at the same instant is applied before one re-solve.
    while (!events_.empty() && events_.top().time == at) {
      const std::uint32_t slot = events_.pop().slot;
      if (flows_[slot].phase == FlowPhase::Waiting) {
        activate(slot, done);
      } else {
        done.push_back(CompletedFlow{flows_[slot].id, at});
        leave_links(slot);
        release(slot);
      }
    }
    resolve();
  }
  now_ = t;
  std::sort(done.begin(), done.end(), [](const CompletedFlow& a, const CompletedFlow& b) {
    return a.time != b.time ? a.time < b.time : a.id < b.id;
  });
  return done;
}

void FlowModel::State::activate(std::uint32_t slot, std::vector<CompletedFlow>& done) {
  FlowRecord& flow = flows_[slot];
  const bool unconstrained = flow.path.empty() && flow.rate_cap == kUnlimitedRate;
  if (flow.bytes_left <= 0 || unconstrained) {
    done.push_back(CompletedFlow{flow.id, now_});
    release(slot);
    return;
  }
  --waiting_;
  ++sharing_;
  flow.phase = FlowPhase::Sharing;
  flow.updated_at = now_;
  join_links(slot);
  arrivals_.push_back(slot);
}

// Shadowed links. A link A whose every flow also crosses a link B of no larger capacity never
// binds: its load is at most B's, so the max-min rates without A's constraint already satisfy it
// (and max-min rates are unique). Such links (a GPU's PCIe link to its rail NIC, shadowed by the
// NIC's port) are kept off the solver: their flows are listed only for link_utilization. A link
// is shadowed when its first flow joins, by that flow's next or previous link if it is no wider;
// a later flow that does not cross the dominator makes it solved again for good (`promote`).
void FlowModel::State::join_links(std::uint32_t slot) {
  const std::vector<LinkId>& path = flows_[slot].path;
  bool repeats = !shadow_links_;  // a flow crossing a link twice loads it twice: no shadows
  for (std::size_t i = 0; i < path.size() && !repeats; ++i) {
    repeats = std::find(path.begin() + static_cast<std::ptrdiff_t>(i) + 1, path.end(), path[i]) !=
              path.end();
  }
  for (std::size_t i = 0; i < path.size(); ++i) {
    const LinkId id = path[i];
    LinkRecord& link = links_[id];
    if (link.mode == LinkMode::Shadowed) {
      if (!repeats && std::find(path.begin(), path.end(), link.dominator) != path.end()) {
        add_shadow_hop(slot, id);
        continue;
      }
      promote(id);
    } else if (!repeats && link.mode == LinkMode::Open && link.flows.empty()) {
      const LinkId dominator = dominator_for(path, i);
      if (dominator >= 0) {
        link.mode = LinkMode::Shadowed;
        link.dominator = dominator;
        links_[dominator].mode = LinkMode::Pinned;
        add_shadow_hop(slot, id);
        continue;
      }
    }
    add_solved_hop(slot, id, kUnlimitedRate);
  }
  flows_[slot].path.clear();
}

LinkId FlowModel::State::dominator_for(const std::vector<LinkId>& path, std::size_t i) const {
  const LinkRecord& link = links_[path[i]];
  for (const std::size_t j : {i + 1, i - 1}) {  // i - 1 wraps past the end for i = 0
    if (j >= path.size()) continue;
    const LinkRecord& other = links_[path[j]];
    if (other.mode != LinkMode::Shadowed && other.capacity <= link.capacity) return path[j];
  }
  return -1;
}

void FlowModel::State::add_solved_hop(std::uint32_t slot, LinkId id, double level) {
  FlowRecord& flow = flows_[slot];
  auto& on_link = links_[id].flows;
  const auto hop = static_cast<std::uint32_t>(flow.hops.size());
  flow.hops.push_back(Hop{id, static_cast<std::uint32_t>(on_link.size())});
  on_link.push_back(LinkEntry{slot, hop, level, flow.weight});
}

void FlowModel::State::add_shadow_hop(std::uint32_t slot, LinkId id) {
  FlowRecord& flow = flows_[slot];
  auto& shadow = links_[id].shadow;
  const auto hop = static_cast<std::uint32_t>(flow.shadow_hops.size());
  flow.shadow_hops.push_back(Hop{id, static_cast<std::uint32_t>(shadow.size())});
  shadow.push_back(ShadowEntry{slot, hop});
}

// Removes the flow's shadow hop `hop` from its link's list and from the flow.
void FlowModel::State::remove_shadow_hop(std::uint32_t slot, std::size_t hop) {
  FlowRecord& flow = flows_[slot];
  const Hop removed = flow.shadow_hops[hop];
  auto& shadow = links_[removed.link].shadow;
  const ShadowEntry moved_entry = shadow.back();
  shadow[removed.position] = moved_entry;
  flows_[moved_entry.flow].shadow_hops[moved_entry.hop].position = removed.position;
  shadow.pop_back();
  if (hop + 1 < flow.shadow_hops.size()) {
    const Hop moved_hop = flow.shadow_hops.back();
    flow.shadow_hops[hop] = moved_hop;
    links_[moved_hop.link].shadow[moved_hop.position].hop = static_cast<std::uint32_t>(hop);
  }
  flow.shadow_hops.pop_back();
}

// A flow that does not cross the dominator joins a shadowed link: the link is solved from now on.
// Its flows enter the solver at their current levels, which it already satisfies.
void FlowModel::State::promote(LinkId id) {
  LinkRecord& link = links_[id];
  link.mode = LinkMode::Pinned;
  link.dominator = -1;
  while (!link.shadow.empty()) {
    const ShadowEntry entry = link.shadow.back();
    const FlowRecord& flow = flows_[entry.flow];
    const Hop& first = flow.hops.front();  // its dominator's hop at least
    const double level = links_[first.link].flows[first.position].level;
    remove_shadow_hop(entry.flow, entry.hop);
    add_solved_hop(entry.flow, id, level);
  }
}

void FlowModel::State::leave_links(std::uint32_t slot) {
  FlowRecord& flow = flows_[slot];
  left_min_level_ = std::min(left_min_level_, flow.rate / flow.weight);
  for (const Hop& hop : flow.hops) {
    auto& on_link = links_[hop.link].flows;
    const LinkEntry moved = on_link.back();
    on_link[hop.position] = moved;
    flows_[moved.flow].hops[moved.hop].position = hop.position;
    on_link.pop_back();
    left_links_.push_back(hop.link);
  }
  while (!flow.shadow_hops.empty()) {
    const LinkId id = flow.shadow_hops.back().link;
    remove_shadow_hop(slot, flow.shadow_hops.size() - 1);
    LinkRecord& link = links_[id];
    if (link.shadow.empty()) {
      link.mode = LinkMode::Open;
      link.dominator = -1;
    }
  }
}

void FlowModel::State::resolve() {
  if (left_links_.empty() && arrivals_.empty()) return;
  const auto changed =
      solver_.solve(flows_, links_, left_links_, left_min_level_, arrivals_, tolerance_);
  left_links_.clear();
  left_min_level_ = kUnlimitedRate;
  arrivals_.clear();
  ++counters_.solves;
  counters_.flows_solved += solver_.solved_count();
  counters_.rate_changes += changed.size();
  for (std::uint32_t slot : changed) {
    FlowRecord& flow = flows_[slot];
    flow.bytes_left -= flow.rate * static_cast<double>(now_ - flow.updated_at) / kNsPerSecond;
    flow.updated_at = now_;
    flow.rate = flow.solved_rate;
    schedule_completion(slot);
  }
}

void FlowModel::State::schedule_completion(std::uint32_t slot) {
  const FlowRecord& flow = flows_[slot];
  if (!(flow.rate > 0)) {
    events_.remove(slot);  // starved (only by rounding): rescheduled when its rate changes
    return;
  }
  events_.set(slot, now_ + transfer_ns(flow.bytes_left, flow.rate), flow.id);
}

double FlowModel::State::utilization(LinkId id) const {
  const double capacity = topology_.link(id).bandwidth;
  if (id >= static_cast<LinkId>(links_.size())) return 0;
  double load = 0;
  for (const LinkEntry& entry : links_[id].flows) load += entry.rate();
  for (const ShadowEntry& entry : links_[id].shadow) load += flows_[entry.flow].rate;
  return load / capacity;
}

FlowModel::FlowModel(const Topology& topology, FlowModelOptions options) {
  if (!(options.tolerance >= 0 && options.tolerance < 1)) {
    throw std::invalid_argument("FlowModel: tolerance must be in [0, 1), got " +
                                std::to_string(options.tolerance));
  }
  state_ = std::make_unique<State>(topology, options);
}

FlowModel::~FlowModel() = default;

FlowId FlowModel::start_flow(Time now, const Path& path, double bytes, double rate_cap,
                             double weight) {
  return state_->start(now, path, bytes, rate_cap, weight);
}

bool FlowModel::cancel_flow(Time now, FlowId id) { return state_->cancel(now, id); }

std::optional<Time> FlowModel::next_event_time() const { return state_->next_event(); }

std::vector<FlowId> FlowModel::advance_to(Time t) {
  std::vector<FlowId> ids;
  for (const CompletedFlow& done : state_->advance(t)) ids.push_back(done.id);
  return ids;
}

std::vector<CompletedFlow> FlowModel::advance_to_with_times(Time t) { return state_->advance(t); }

Time FlowModel::now() const { return state_->now_; }

double FlowModel::flow_rate(FlowId id) const {
  const FlowRecord* flow = state_->find(id);
  return flow && flow->phase == FlowPhase::Sharing ? flow->rate : 0;
}

double FlowModel::bytes_remaining(FlowId id) const {
  const FlowRecord* flow = state_->find(id);
  if (!flow) return 0;
  const double sent =
      flow->rate * static_cast<double>(state_->now_ - flow->updated_at) / kNsPerSecond;
  return std::max(0.0, flow->bytes_left - sent);
}

double FlowModel::link_utilization(LinkId id) const { return state_->utilization(id); }

int FlowModel::active_flow_count() const { return state_->sharing_; }

int FlowModel::waiting_flow_count() const { return state_->waiting_; }

FlowModel::Counters FlowModel::counters() const { return state_->counters_; }

}  // namespace seer::net
