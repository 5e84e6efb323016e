#include "seer/netsim/cluster_fabric.h"

#include <stdexcept>
#include <string>
#include <utility>

namespace seer::net {

namespace {

void check_index(const char* what, int value, int limit) {
  if (value < 0 || value >= limit) {
    throw std::out_of_range(std::string(what) + " " + std::to_string(value) + " out of range [0, " +
                            std::to_string(limit) + ")");
  }
}

std::string part_name(int node, const char* part, int index = -1) {
  std::string name = "node" + std::to_string(node) + "/" + part;
  if (index >= 0) name += std::to_string(index);
  return name;
}

}  // namespace

ClusterFabric::ClusterFabric(ClusterShape shape) : shape_(std::move(shape)) {
  validate(shape_);
  if (shape_.gpu_to_nic.empty() && shape_.nics_per_node > 0) {
    for (int gpu = 0; gpu < shape_.gpus_per_node; ++gpu) {
      shape_.gpu_to_nic.push_back(gpu * shape_.nics_per_node / shape_.gpus_per_node);
    }
  }
  for (int node = 0; node < shape_.nodes; ++node) build_node(node);
  if (shape_.nics_per_node > 0) build_fat_tree();
}

void ClusterFabric::build_node(int node) {
  const int gpu_count = shape_.gpus_per_node;
  const std::size_t first_gpu = gpus_.size();
  for (int local = 0; local < gpu_count; ++local) {
    gpus_.push_back(topology_.add_node(NodeKind::Gpu, part_name(node, "gpu", local)));
  }
  auto local_gpu = [&](int local) { return gpus_[first_gpu + local]; };

  if (shape_.nvswitch) {
    const NodeId nvswitch = topology_.add_node(NodeKind::NvSwitch, part_name(node, "nvswitch"));
    nvswitches_.push_back(nvswitch);
    if (gpu_count > 1) {
      // A switch's hop latency sits on the links leaving it, so GPU -> GPU pays it once.
      for (int local = 0; local < gpu_count; ++local) {
        topology_.add_link(local_gpu(local), nvswitch, shape_.nvlink_bw_per_gpu, 0);
        topology_.add_link(nvswitch, local_gpu(local), shape_.nvlink_bw_per_gpu,
                           shape_.nvswitch_latency);
      }
    }
  } else {
    nvswitches_.push_back(-1);
    const double pair_bw = gpu_count > 1 ? shape_.nvlink_bw_per_gpu / (gpu_count - 1) : 0;
    for (int a = 0; a < gpu_count; ++a) {
      for (int b = a + 1; b < gpu_count; ++b) {
        topology_.add_duplex(local_gpu(a), local_gpu(b), pair_bw, shape_.nvswitch_latency);
      }
    }
  }

  const std::size_t first_nic = nics_.size();
  for (int k = 0; k < shape_.nics_per_node; ++k) {
    nics_.push_back(topology_.add_node(NodeKind::Nic, part_name(node, "nic", k)));
  }
  if (shape_.nics_per_node == 0) return;
  for (int local = 0; local < gpu_count; ++local) {
    const NodeId rail_nic = nics_[first_nic + shape_.gpu_to_nic[local]];
    topology_.add_duplex(local_gpu(local), rail_nic, shape_.pcie_bw, shape_.pcie_latency);
  }
}

NodeId ClusterFabric::gpu(int node, int local_gpu) const {
  check_index("node", node, shape_.nodes);
  check_index("local GPU", local_gpu, shape_.gpus_per_node);
  return gpus_[node * shape_.gpus_per_node + local_gpu];
}

NodeId ClusterFabric::gpu(int global_gpu) const {
  check_index("GPU", global_gpu, gpu_count());
  return gpus_[global_gpu];
}

NodeId ClusterFabric::nic(int node, int local_nic) const {
  check_index("node", node, shape_.nodes);
  check_index("local NIC", local_nic, shape_.nics_per_node);
  return nics_[node * shape_.nics_per_node + local_nic];
}

int ClusterFabric::rail_of_gpu(int local_gpu) const {
  check_index("local GPU", local_gpu, shape_.gpus_per_node);
  if (shape_.nics_per_node == 0) throw std::out_of_range("the cluster has no NICs");
  return shape_.gpu_to_nic[local_gpu];
}

NodeId ClusterFabric::nic_of_gpu(int node, int local_gpu) const {
  return nic(node, rail_of_gpu(local_gpu));
}

NodeId ClusterFabric::nvswitch(int node) const {
  check_index("node", node, shape_.nodes);
  return nvswitches_[node];
}

NodeId ClusterFabric::leaf_of_nic(int node, int local_nic) const {
  check_index("node", node, shape_.nodes);
  check_index("local NIC", local_nic, shape_.nics_per_node);
  return leaf_of_nic_[node * shape_.nics_per_node + local_nic];
}

}  // namespace seer::net
