#pragma once

#include <optional>
#include <vector>

#include "seer/netsim/path.h"
#include "seer/netsim/types.h"

namespace seer::net {

// What the collective layer needs from a network model: flows go in along a routed path, their
// completion times come out. FlowModel (flow-level max-min sharing, the default) and the ns-3
// packet-level backend implement it.
//
// Time only moves forward: start_flow takes the current time, which must not be before the last
// time given, nor after an event still to be processed (advance_to it first). next_event_time is
// a lower bound: no flow completes before it.
class NetworkModel {
 public:
  virtual ~NetworkModel() = default;

  // Starts sending `bytes` along `path` at `now`. A flow of weight k stands for k identical
  // parallel flows; rate_cap (bytes/s) limits the whole flow.
  virtual FlowId start_flow(Time now, const Path& path, double bytes, double rate_cap,
                            double weight) = 0;
  virtual std::optional<Time> next_event_time() const = 0;
  // Completed flows up to `t`, ordered by completion time, then FlowId; the clock moves to `t`.
  virtual std::vector<FlowId> advance_to(Time t) = 0;
  // Sum of the rates of the flows on the link divided by its bandwidth.
  virtual double link_utilization(LinkId id) const = 0;
  virtual int active_flow_count() const = 0;
  virtual int waiting_flow_count() const = 0;
};

}  // namespace seer::net
