// The scale-out part of ClusterFabric: leaves, spines and cores over all NICs.
#include <algorithm>
#include <cmath>
#include <string>

#include "seer/netsim/cluster_fabric.h"

namespace seer::net {

namespace {

int ceil_div(int a, int b) { return (a + b - 1) / b; }

// How many links of `link_bw` carry `total_bw`; the tolerance keeps 2.0000000001 at 2.
int links_needed(double total_bw, double link_bw) {
  return std::max(1, static_cast<int>(std::ceil(total_bw / link_bw * (1 - 1e-12))));
}

}  // namespace

void ClusterFabric::build_fat_tree() {
  const ClusterShape& shape = shape_;
  const double switch_link_bw = shape.link_bw > 0 ? shape.link_bw : shape.nic_bw;
  const Time hop = shape.switch_hop_latency;

  // Leaves. Rail-optimized leaves are numbered group-major (all rails of nodes [0, hosts_per_leaf),
  // then the next group), so a 3-tier pod holds whole groups of nodes.
  int leaf_count = 1;
  if (shape.tiers > 1) {
    leaf_count = shape.rail_optimized
                     ? ceil_div(shape.nodes, shape.hosts_per_leaf) * shape.nics_per_node
                     : ceil_div(shape.nodes * shape.nics_per_node, shape.hosts_per_leaf);
  }
  for (int leaf = 0; leaf < leaf_count; ++leaf) {
    std::string name = "switch";
    if (shape.tiers > 1) {
      name = shape.rail_optimized ? "leaf" + std::to_string(leaf / shape.nics_per_node) + "/rail" +
                                        std::to_string(leaf % shape.nics_per_node)
                                  : "leaf" + std::to_string(leaf);
    }
    leaves_.push_back(topology_.add_node(NodeKind::LeafSwitch, name));
  }
  for (int node = 0; node < shape.nodes; ++node) {
    for (int k = 0; k < shape.nics_per_node; ++k) {
      int leaf = 0;
      if (shape.tiers > 1) {
        leaf = shape.rail_optimized ? (node / shape.hosts_per_leaf) * shape.nics_per_node + k
                                    : (node * shape.nics_per_node + k) / shape.hosts_per_leaf;
      }
      const NodeId nic = nics_[node * shape.nics_per_node + k];
      topology_.add_link(nic, leaves_[leaf], shape.nic_bw, shape.nic_latency);
      topology_.add_link(leaves_[leaf], nic, shape.nic_bw, hop + shape.nic_latency);
      leaf_of_nic_.push_back(leaves_[leaf]);
    }
  }
  if (shape.tiers == 1) return;

  // Each leaf's uplink capacity is exactly its downlink capacity / oversubscription, split evenly
  // over one link to each spine it reaches.
  const double leaf_up_bw = shape.hosts_per_leaf * shape.nic_bw / shape.oversubscription;
  const int spines_per_pod = links_needed(leaf_up_bw, switch_link_bw);
  const double leaf_spine_bw = leaf_up_bw / spines_per_pod;
  const int leaves_per_pod =
      shape.tiers == 2 ? leaf_count
                       : (shape.leaves_per_pod > 0 ? shape.leaves_per_pod : shape.hosts_per_leaf);
  const int pods = ceil_div(leaf_count, leaves_per_pod);
  for (int pod = 0; pod < pods; ++pod) {
    for (int j = 0; j < spines_per_pod; ++j) {
      const std::string prefix = shape.tiers == 2 ? "" : "pod" + std::to_string(pod) + "/";
      spines_.push_back(
          topology_.add_node(NodeKind::SpineSwitch, prefix + "spine" + std::to_string(j)));
    }
  }
  for (int leaf = 0; leaf < leaf_count; ++leaf) {
    const int pod = leaf / leaves_per_pod;
    for (int j = 0; j < spines_per_pod; ++j) {
      topology_.add_duplex(leaves_[leaf], spines_[pod * spines_per_pod + j], leaf_spine_bw, hop);
    }
  }
  if (shape.tiers == 2) return;

  // Spine j of every pod connects to every core of core group j; the spine tier is non-blocking.
  const double spine_down_bw = leaves_per_pod * leaf_spine_bw;
  const int cores_per_group = links_needed(spine_down_bw, switch_link_bw);
  const double spine_core_bw = spine_down_bw / cores_per_group;
  for (int group = 0; group < spines_per_pod; ++group) {
    for (int c = 0; c < cores_per_group; ++c) {
      cores_.push_back(topology_.add_node(
          NodeKind::CoreSwitch, "core" + std::to_string(group) + "/" + std::to_string(c)));
    }
  }
  for (int pod = 0; pod < pods; ++pod) {
    for (int group = 0; group < spines_per_pod; ++group) {
      for (int c = 0; c < cores_per_group; ++c) {
        topology_.add_duplex(spines_[pod * spines_per_pod + group],
                             cores_[group * cores_per_group + c], spine_core_bw, hop);
      }
    }
  }
}

}  // namespace seer::net
