#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "seer/netsim/network_model.h"
#include "seer/netsim/path.h"
#include "seer/netsim/topology.h"
#include "seer/netsim/types.h"

namespace seer::net {

inline constexpr double kUnlimitedRate = std::numeric_limits<double>::infinity();

struct CompletedFlow {
  FlowId id;
  Time time;

  friend bool operator==(const CompletedFlow&, const CompletedFlow&) = default;
};

struct FlowModelOptions {
  // 0 (the default): exact max-min rates after every change. t in (0, 1): a rate change of less
  // than t of a flow's rate is applied but not passed on to the flows that share its links, so a
  // change in a large tangle of unsynchronized flows stops spreading once it is small. Rates then
  // stay within a few t of max-min (README.md, "Tolerance"); collectives whose flows start and end
  // together are not affected, their changes are large.
  double tolerance = 0;
  // Keeps links that cannot bind off the solver (a link whose every flow also crosses a link of
  // no larger capacity, such as a GPU's PCIe link into its rail NIC). The rates are the same;
  // false solves every link, for comparison.
  bool shadow_links = true;
};

// Flow-level network model. A started flow first waits its path latency without using bandwidth;
// then it shares every link it crosses max-min fairly (by weight) with the other flows there,
// optionally limited by its own rate cap, until its bytes are sent. After arrivals and departures
// only what changes is solved again: the filling restarts at the level where the change begins and
// follows the flows whose rate changes to the links they cross (README.md explains why that is
// exact).
//
// Time only moves forward: start_flow and cancel_flow take the current time, which must not be
// before the last time given, nor after an event still to be processed (advance_to it first).
class FlowModel : public NetworkModel {
 public:
  // The topology must outlive the model; links added to it later may be used by later flows.
  // Throws std::invalid_argument for a tolerance outside [0, 1).
  explicit FlowModel(const Topology& topology, FlowModelOptions options = {});
  ~FlowModel() override;
  FlowModel(const FlowModel&) = delete;
  FlowModel& operator=(const FlowModel&) = delete;

  // Starts sending `bytes` along `path` at `now`. The flow joins the sharing at now + latency,
  // during the next advance_to that reaches that time (even when the latency is 0). A flow of
  // weight k stands for k identical parallel flows: on a shared link it gets k fair shares.
  FlowId start_flow(Time now, const Path& path, double bytes, double rate_cap = kUnlimitedRate,
                    double weight = 1) override;

  // Drops a flow that has not completed; returns false when it is unknown or already completed.
  bool cancel_flow(Time now, FlowId id);

  // Earliest pending latency expiry or completion. Completions are rounded up to whole ns so a
  // flow never finishes before its last byte.
  std::optional<Time> next_event_time() const override;

  // Processes, in time order, every activation and completion at or before `t`, then sets the
  // clock to `t`. Returns the completed flows ordered by completion time, then FlowId.
  std::vector<FlowId> advance_to(Time t) override;
  std::vector<CompletedFlow> advance_to_with_times(Time t);

  Time now() const;

  // Current rate in bytes per second; 0 for flows still paying latency or not known.
  double flow_rate(FlowId id) const;
  // Bytes not yet sent as of now(); 0 for unknown flows.
  double bytes_remaining(FlowId id) const;
  // Sum of the rates of the flows on the link divided by its bandwidth.
  double link_utilization(LinkId id) const override;

  int active_flow_count() const override;   // flows sharing bandwidth
  int waiting_flow_count() const override;  // flows still paying their path latency

  // Work counters, for benchmarks.
  struct Counters {
    std::uint64_t solves = 0;        // component re-solves
    std::uint64_t flows_solved = 0;  // sum of component sizes over all solves
    std::uint64_t rate_changes = 0;  // flows whose rate changed in a solve
  };
  Counters counters() const;

 private:
  class State;
  std::unique_ptr<State> state_;
};

}  // namespace seer::net
