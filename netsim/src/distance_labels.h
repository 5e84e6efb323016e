#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "seer/netsim/topology.h"

namespace seer::net::detail {

// Forwarding rules every route obeys: a GPU is an endpoint, never a hop in between, and a NIC
// forwards only between its host side (GPUs, NVSwitches, PCIe switches, hosts) and the network side
// (switches, other NICs), so traffic never turns around inside a NIC.
bool on_network_side(NodeKind kind);
bool may_forward(NodeKind node, NodeKind from, NodeKind to);

// Hop distances to one destination over the graph whose states are (node, side it was entered
// from); only NICs have two distinct states. Built by one breadth-first search backwards from the
// destination, so routing picks next hops by label without enumerating paths.
class DistanceLabels {
 public:
  static constexpr std::uint16_t kUnreachable = 0xffff;

  // `kinds[n]` is the kind of node n (a compact copy the caller keeps alive).
  DistanceLabels(const Topology& topology, std::span<const NodeKind> kinds, NodeId destination);

  NodeId destination() const { return destination_; }

  // Hops still needed after entering `node` over a link from `from`.
  std::uint16_t hops_after_entering(NodeId node, NodeId from) const {
    return hops_[state(node, from)];
  }

  // Hops from `source` (where no forwarding rule applies yet), or kUnreachable.
  std::uint16_t hops_from_source(NodeId source) const;

  // Whether link `id` leaving `node` (entered from `from`, or -1 at the source) is on a shortest
  // path, given that `hops_left` hops remain from `node`.
  bool is_next_hop(LinkId id, NodeId node, NodeId from, std::uint16_t hops_left) const;

  std::size_t state(NodeId node, NodeId from) const;

 private:
  const Topology& topology_;
  std::span<const NodeKind> kinds_;
  NodeId destination_;
  std::vector<std::uint16_t> hops_;  // indexed by state(): 2 * node + entered-from-network-side
};

}  // namespace seer::net::detail
