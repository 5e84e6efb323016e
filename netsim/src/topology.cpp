#include "seer/netsim/topology.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace seer::net {

std::string_view to_string(NodeKind kind) {
  switch (kind) {
    case NodeKind::Gpu:
      return "gpu";
    case NodeKind::NvSwitch:
      return "nvswitch";
    case NodeKind::Nic:
      return "nic";
    case NodeKind::PcieSwitch:
      return "pcie-switch";
    case NodeKind::Host:
      return "host";
    case NodeKind::LeafSwitch:
      return "leaf-switch";
    case NodeKind::SpineSwitch:
      return "spine-switch";
    case NodeKind::CoreSwitch:
      return "core-switch";
  }
  return "unknown";
}

NodeId Topology::add_node(NodeKind kind, std::string name) {
  nodes_.push_back(Node{kind, std::move(name)});
  out_links_.emplace_back();
  in_links_.emplace_back();
  return static_cast<NodeId>(nodes_.size() - 1);
}

LinkId Topology::add_link(NodeId from, NodeId to, double bandwidth, Time latency) {
  if (from < 0 || from >= node_count()) throw_unknown_node(from, "link source");
  if (to < 0 || to >= node_count()) throw_unknown_node(to, "link destination");
  if (from == to) {
    throw std::invalid_argument("link from node '" + nodes_[from].name + "' to itself");
  }
  if (!(bandwidth > 0) || !std::isfinite(bandwidth)) {
    throw std::invalid_argument("link " + nodes_[from].name + " -> " + nodes_[to].name +
                                ": bandwidth must be positive and finite, got " +
                                std::to_string(bandwidth));
  }
  if (latency < 0) {
    throw std::invalid_argument("link " + nodes_[from].name + " -> " + nodes_[to].name +
                                ": latency must not be negative, got " + std::to_string(latency));
  }
  const auto id = static_cast<LinkId>(links_.size());
  links_.push_back(Link{from, to, bandwidth, latency});
  out_links_[from].push_back(id);
  in_links_[to].push_back(id);
  return id;
}

std::pair<LinkId, LinkId> Topology::add_duplex(NodeId a, NodeId b, double bandwidth, Time latency) {
  const LinkId forward = add_link(a, b, bandwidth, latency);
  const LinkId backward = add_link(b, a, bandwidth, latency);
  return {forward, backward};
}

LinkId Topology::find_link(NodeId from, NodeId to) const {
  for (LinkId id : out_links(from)) {
    if (links_[id].to == to) return id;
  }
  return -1;
}

void Topology::throw_unknown_node(NodeId id, const char* what) const {
  throw std::out_of_range(std::string(what) + " id " + std::to_string(id) + " out of range [0, " +
                          std::to_string(node_count()) + ")");
}

void Topology::throw_unknown_link(LinkId id) const {
  throw std::out_of_range("link id " + std::to_string(id) + " out of range [0, " +
                          std::to_string(link_count()) + ")");
}

}  // namespace seer::net
