#pragma once

#include <cstdint>
#include <memory>
#include <unordered_set>
#include <vector>

#include "seer/netsim/path.h"
#include "seer/netsim/topology.h"

namespace seer::net {

namespace detail {
class DistanceLabels;
}

enum class RoutingMode {
  Ecmp,        // each hop picks one of its equal-cost next hops from the flow hash
  SinglePath,  // each hop takes its first equal-cost next hop (lowest LinkId)
};

// Shortest paths by hop count. A GPU is never a hop in between and a NIC only forwards between its
// host side and the network (see README.md). Distance labels are computed once per destination, on
// first use; returned paths are interned and stay valid as long as the Router lives.
// Not thread-safe: route() fills caches.
class Router {
 public:
  explicit Router(const Topology& topology, RoutingMode mode = RoutingMode::Ecmp);
  ~Router();
  Router(const Router&) = delete;
  Router& operator=(const Router&) = delete;

  // The path a flow with this hash takes. The same (src, dst, hash) always gives the same Path
  // object. Throws std::invalid_argument when dst cannot be reached from src.
  const Path& route(NodeId src, NodeId dst, std::uint64_t flow_hash = 0);

  // Hops on a shortest path, or -1 when dst cannot be reached.
  int hop_count(NodeId src, NodeId dst);

  // Number of distinct equal-cost shortest paths (saturates at UINT64_MAX).
  std::uint64_t path_count(NodeId src, NodeId dst);

  RoutingMode mode() const { return mode_; }

 private:
  struct PathLinksHash {
    std::size_t operator()(const Path& path) const;
  };

  const detail::DistanceLabels& labels_to(NodeId dst);
  const Path& intern(const Path& path);

  const Topology& topology_;
  RoutingMode mode_;
  int labelled_node_count_ = 0;
  int labelled_link_count_ = 0;
  std::vector<NodeKind> kinds_;  // by node, for the labels
  std::vector<std::unique_ptr<detail::DistanceLabels>> labels_by_destination_;
  std::unordered_set<Path, PathLinksHash> paths_;
  Path scratch_;
  std::vector<LinkId> next_hops_;
};

}  // namespace seer::net
