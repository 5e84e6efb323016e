#include "seer/netsim/router.h"

#include <limits>
#include <stdexcept>

#include "distance_labels.h"
#include "seer/netsim/hash.h"

namespace seer::net {

using detail::DistanceLabels;

Router::Router(const Topology& topology, RoutingMode mode) : topology_(topology), mode_(mode) {}

Router::~Router() = default;

std::size_t Router::PathLinksHash::operator()(const Path& path) const {
  std::uint64_t hash = path.links.size();
  for (LinkId id : path.links) hash = hash_combine(hash, static_cast<std::uint64_t>(id));
  return static_cast<std::size_t>(hash);
}

const DistanceLabels& Router::labels_to(NodeId dst) {
  topology_.node(dst);  // validates the id
  if (topology_.node_count() != labelled_node_count_ ||
      topology_.link_count() != labelled_link_count_) {
    // The topology grew: every label may be stale. Interned paths stay valid (links never vanish).
    labels_by_destination_.clear();
    labels_by_destination_.resize(topology_.node_count());
    kinds_.clear();
    for (NodeId id = 0; id < topology_.node_count(); ++id)
      kinds_.push_back(topology_.node(id).kind);
    labelled_node_count_ = topology_.node_count();
    labelled_link_count_ = topology_.link_count();
  }
  auto& labels = labels_by_destination_[dst];
  if (!labels) labels = std::make_unique<DistanceLabels>(topology_, kinds_, dst);
  return *labels;
}

const Path& Router::route(NodeId src, NodeId dst, std::uint64_t flow_hash) {
  topology_.node(src);
  const DistanceLabels& labels = labels_to(dst);
  std::uint16_t hops_left = labels.hops_from_source(src);
  if (hops_left == DistanceLabels::kUnreachable) {
    throw std::invalid_argument("no route from '" + topology_.node(src).name + "' to '" +
                                topology_.node(dst).name + "'");
  }
  scratch_.links.clear();
  scratch_.latency = 0;
  NodeId from = -1;
  NodeId node = src;
  while (hops_left > 0) {
    next_hops_.clear();
    for (LinkId id : topology_.out_links(node)) {
      if (labels.is_next_hop(id, node, from, hops_left)) next_hops_.push_back(id);
    }
    std::uint32_t pick = 0;
    if (mode_ == RoutingMode::Ecmp && next_hops_.size() > 1) {
      // Salting with the node id makes the choices at successive hops independent.
      pick = pick_index(hash_combine(flow_hash, static_cast<std::uint64_t>(node)),
                        static_cast<std::uint32_t>(next_hops_.size()));
    }
    const Link& link = topology_.link(next_hops_[pick]);
    scratch_.links.push_back(next_hops_[pick]);
    scratch_.latency += link.latency;
    from = node;
    node = link.to;
    --hops_left;
  }
  return intern(scratch_);
}

const Path& Router::intern(const Path& path) { return *paths_.insert(path).first; }

int Router::hop_count(NodeId src, NodeId dst) {
  topology_.node(src);
  const std::uint16_t hops = labels_to(dst).hops_from_source(src);
  return hops == DistanceLabels::kUnreachable ? -1 : hops;
}

std::uint64_t Router::path_count(NodeId src, NodeId dst) {
  topology_.node(src);
  const DistanceLabels& labels = labels_to(dst);
  const std::uint16_t total = labels.hops_from_source(src);
  if (total == DistanceLabels::kUnreachable) return 0;
  constexpr std::uint64_t kUnknown = std::numeric_limits<std::uint64_t>::max();
  constexpr std::uint64_t kSaturated = kUnknown - 1;
  std::vector<std::uint64_t> memo(2 * static_cast<std::size_t>(topology_.node_count()), kUnknown);

  // Paths from `node` (entered from `from`) with `hops_left` hops to go; depth is bounded by the
  // path length, so recursion is safe.
  auto count = [&](auto& self, NodeId node, NodeId from, std::uint16_t hops_left) -> std::uint64_t {
    if (hops_left == 0) return 1;
    std::uint64_t* cached = from >= 0 ? &memo[labels.state(node, from)] : nullptr;
    if (cached && *cached != kUnknown) return *cached;
    std::uint64_t sum = 0;
    for (LinkId id : topology_.out_links(node)) {
      if (!labels.is_next_hop(id, node, from, hops_left)) continue;
      const std::uint64_t part = self(self, topology_.link(id).to, node, hops_left - 1);
      sum = part > kSaturated - sum ? kSaturated : sum + part;
    }
    if (cached) *cached = sum;
    return sum;
  };
  const std::uint64_t paths = count(count, src, -1, total);
  return paths == kSaturated ? std::numeric_limits<std::uint64_t>::max() : paths;
}

}  // namespace seer::net
