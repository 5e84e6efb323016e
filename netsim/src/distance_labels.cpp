#include "distance_labels.h"

#include <stdexcept>

namespace seer::net::detail {

bool on_network_side(NodeKind kind) {
  switch (kind) {
    case NodeKind::Nic:
    case NodeKind::LeafSwitch:
    case NodeKind::SpineSwitch:
    case NodeKind::CoreSwitch:
      return true;
    default:
      return false;
  }
}

bool may_forward(NodeKind node, NodeKind from, NodeKind to) {
  if (node == NodeKind::Gpu) return false;
  if (node == NodeKind::Nic) return on_network_side(from) != on_network_side(to);
  return true;
}

namespace {

// Index of the state reached by entering `node_kind` from `from_kind`: only NICs remember the side.
std::size_t state_index(NodeId node, NodeKind node_kind, NodeKind from_kind) {
  const bool from_network = node_kind == NodeKind::Nic && on_network_side(from_kind);
  return 2 * static_cast<std::size_t>(node) + (from_network ? 1 : 0);
}

}  // namespace

std::size_t DistanceLabels::state(NodeId node, NodeId from) const {
  return state_index(node, kinds_[node], kinds_[from]);
}

DistanceLabels::DistanceLabels(const Topology& topology, std::span<const NodeKind> kinds,
                               NodeId destination)
    : topology_(topology),
      kinds_(kinds),
      destination_(destination),
      hops_(2 * static_cast<std::size_t>(topology.node_count()), kUnreachable) {
  std::vector<std::size_t> frontier = {2 * static_cast<std::size_t>(destination),
                                       2 * static_cast<std::size_t>(destination) + 1};
  hops_[frontier[0]] = 0;
  hops_[frontier[1]] = 0;
  std::vector<std::size_t> next;
  for (std::uint16_t hops = 1; !frontier.empty(); ++hops) {
    if (hops == kUnreachable) throw std::length_error("route longer than 65534 hops");
    next.clear();
    for (std::size_t entered : frontier) {
      const auto node = static_cast<NodeId>(entered / 2);
      const NodeKind kind = kinds[node];
      for (LinkId id : topology.in_links(node)) {
        const NodeId prev = topology.link(id).from;
        const NodeKind prev_kind = kinds[prev];
        if (prev == destination || state_index(node, kind, prev_kind) != entered) continue;
        if (prev_kind == NodeKind::Gpu) continue;  // sources are handled by hops_from_source
        // The one state of `prev` from which forwarding to `node` is allowed.
        const bool prev_entered_from_network = prev_kind == NodeKind::Nic && !on_network_side(kind);
        const std::size_t prev_state =
            2 * static_cast<std::size_t>(prev) + (prev_entered_from_network ? 1 : 0);
        if (hops_[prev_state] != kUnreachable) continue;
        hops_[prev_state] = hops;
        next.push_back(prev_state);
      }
    }
    frontier.swap(next);
  }
}

std::uint16_t DistanceLabels::hops_from_source(NodeId source) const {
  if (source == destination_) return 0;
  std::uint16_t best = kUnreachable;
  for (LinkId id : topology_.out_links(source)) {
    const std::uint16_t rest = hops_after_entering(topology_.link(id).to, source);
    if (rest != kUnreachable && rest + 1 < best) best = rest + 1;
  }
  return best;
}

bool DistanceLabels::is_next_hop(LinkId id, NodeId node, NodeId from,
                                 std::uint16_t hops_left) const {
  const NodeId to = topology_.link(id).to;
  if (from >= 0 && !may_forward(kinds_[node], kinds_[from], kinds_[to])) {
    return false;
  }
  return hops_after_entering(to, node) + 1 == hops_left;
}

}  // namespace seer::net::detail
