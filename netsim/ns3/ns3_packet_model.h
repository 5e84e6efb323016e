#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "seer/netsim/flow_model.h"
#include "seer/netsim/network_model.h"
#include "seer/netsim/ns3_model.h"
#include "seer/netsim/topology.h"

namespace seer::net {

// The ns-3 packet-level NetworkModel (README.md). No ns-3 header is needed to use it: they stay in
// ns3_packet_model.cpp and ns3_network.cpp.
//
// next_event_time() is a lower bound, not the next completion: the earliest time any flow could
// still finish given the bytes its sender has not yet sent, the links' rates and latencies, its
// rate cap and the simulator's next event. advance_to(t) runs ns-3 through every event at or
// before t and returns the flows whose last byte was delivered by then; a completion inside
// (t - 1 ns, t] counts as t. Not thread-safe; one model per process at a time.
class Ns3Model final : public NetworkModel {
 public:
  // Builds the ns-3 network. Throws std::logic_error while another Ns3Model exists.
  Ns3Model(const Topology& topology, const Ns3Options& options);
  ~Ns3Model() override;
  Ns3Model(const Ns3Model&) = delete;
  Ns3Model& operator=(const Ns3Model&) = delete;

  // A path must be contiguous and visit no node twice (its packets are forwarded by address).
  // The data starts at now + max(0, path.latency - the path's link latencies), once its TCP
  // connections are established; weight k sends over round(k) connections, rate_cap is shared
  // evenly among them.
  FlowId start_flow(Time now, const Path& path, double bytes, double rate_cap = kUnlimitedRate,
                    double weight = 1) override;
  std::optional<Time> next_event_time() const override;
  std::vector<FlowId> advance_to(Time t) override;
  std::vector<CompletedFlow> advance_to_with_times(Time t);
  // Fraction of time the link was transmitting since the previous query of that link (since its
  // first packet for the first query): headers and ACKs included.
  double link_utilization(LinkId id) const override;
  int active_flow_count() const override;   // flows sending data
  int waiting_flow_count() const override;  // flows before their data start

  Time now() const;
  // When the flow's last byte arrived; nullopt while it has not (or for unknown ids).
  std::optional<Time> completion_time(FlowId id) const;

  struct Stats {
    std::uint64_t events = 0;         // ns-3 events executed
    std::uint64_t transmissions = 0;  // packets put on a link, counted once per hop
    std::uint64_t connections = 0;    // TCP connections opened
    std::uint64_t drops = 0;          // packets dropped by queues
    std::uint64_t ecn_marks = 0;      // packets marked congestion-experienced
    std::uint64_t runs = 0;           // Simulator::Run calls
  };
  Stats stats() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace seer::net
