#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "seer/netsim/types.h"

namespace seer::net {

enum class NodeKind {
  Gpu,
  NvSwitch,
  Nic,
  PcieSwitch,
  Host,
  LeafSwitch,
  SpineSwitch,
  CoreSwitch,
};

std::string_view to_string(NodeKind kind);

struct Node {
  NodeKind kind;
  std::string name;
};

// A directed link: traffic flows from `from` to `to`.
struct Link {
  NodeId from;
  NodeId to;
  double bandwidth;  // bytes per second
  Time latency;      // ns
};

// A graph of nodes and directed links. Nodes and links are only ever added, so ids stay valid.
class Topology {
 public:
  NodeId add_node(NodeKind kind, std::string name);

  // Throws std::invalid_argument on unknown nodes, a self-loop, a bandwidth that is not positive
  // and finite, or a negative latency.
  LinkId add_link(NodeId from, NodeId to, double bandwidth, Time latency);

  // Two directed links with the same bandwidth and latency: first a->b, then b->a.
  std::pair<LinkId, LinkId> add_duplex(NodeId a, NodeId b, double bandwidth, Time latency);

  const Node& node(NodeId id) const {
    if (id < 0 || id >= node_count()) throw_unknown_node(id);
    return nodes_[id];
  }
  const Link& link(LinkId id) const {
    if (id < 0 || id >= link_count()) throw_unknown_link(id);
    return links_[id];
  }
  int node_count() const { return static_cast<int>(nodes_.size()); }
  int link_count() const { return static_cast<int>(links_.size()); }

  // Links leaving / entering a node, in increasing LinkId order.
  std::span<const LinkId> out_links(NodeId id) const {
    node(id);
    return out_links_[id];
  }
  std::span<const LinkId> in_links(NodeId id) const {
    node(id);
    return in_links_[id];
  }

  // The first link from -> to, or -1 when there is none.
  LinkId find_link(NodeId from, NodeId to) const;

 private:
  [[noreturn]] void throw_unknown_node(NodeId id, const char* what = "node") const;
  [[noreturn]] void throw_unknown_link(LinkId id) const;

  std::vector<Node> nodes_;
  std::vector<Link> links_;
  std::vector<std::vector<LinkId>> out_links_;
  std::vector<std::vector<LinkId>> in_links_;
};

}  // namespace seer::net
