#pragma once

#include <span>
#include <vector>

#include "seer/netsim/cluster_shape.h"
#include "seer/netsim/topology.h"

namespace seer::net {

// The network of a whole cluster built from a ClusterShape: per node its GPUs, its NVSwitch (or
// NVLink mesh) and its NICs, plus the scale-out fat-tree. README.md describes each part.
class ClusterFabric {
 public:
  // Throws std::invalid_argument (see validate()) on a bad shape.
  explicit ClusterFabric(ClusterShape shape);

  const ClusterShape& shape() const { return shape_; }
  const Topology& topology() const { return topology_; }

  int node_count() const { return shape_.nodes; }
  int gpus_per_node() const { return shape_.gpus_per_node; }
  int gpu_count() const { return shape_.nodes * shape_.gpus_per_node; }
  int nics_per_node() const { return shape_.nics_per_node; }
  int nic_count() const { return shape_.nodes * shape_.nics_per_node; }

  // Ids of the parts; arguments out of range throw std::out_of_range.
  NodeId gpu(int node, int local_gpu) const;
  NodeId gpu(int global_gpu) const;  // global index = node * gpus_per_node + local index
  NodeId nic(int node, int local_nic) const;
  NodeId nic_of_gpu(int node, int local_gpu) const;  // the rail NIC from gpu_to_nic
  int rail_of_gpu(int local_gpu) const;              // the local NIC index serving that GPU
  NodeId nvswitch(int node) const;                   // -1 for an NVLink mesh
  NodeId leaf_of_nic(int node, int local_nic) const;

  std::span<const NodeId> leaves() const { return leaves_; }
  std::span<const NodeId> spines() const { return spines_; }
  std::span<const NodeId> cores() const { return cores_; }

 private:
  void build_node(int node);
  void build_fat_tree();

  ClusterShape shape_;
  Topology topology_;
  std::vector<NodeId> gpus_;  // node-major
  std::vector<NodeId> nics_;  // node-major
  std::vector<NodeId> nvswitches_;
  std::vector<NodeId> leaf_of_nic_;  // node-major, like nics_
  std::vector<NodeId> leaves_;
  std::vector<NodeId> spines_;
  std::vector<NodeId> cores_;
};

}  // namespace seer::net
