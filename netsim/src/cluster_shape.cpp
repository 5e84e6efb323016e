#include "seer/netsim/cluster_shape.h"

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

namespace seer::net {

namespace {

template <typename T>
[[noreturn]] void reject(const std::string& field, T value, const char* requirement) {
  std::ostringstream message;
  message << "cluster shape: " << field << " = " << value << ": " << requirement;
  throw std::invalid_argument(message.str());
}

void require_positive(const char* field, double value) {
  if (!(value > 0) || !std::isfinite(value)) reject(field, value, "must be positive and finite");
}

void require_not_negative(const char* field, Time value) {
  if (value < 0) reject(field, value, "must not be negative");
}

}  // namespace

void validate(const ClusterShape& shape) {
  if (shape.nodes < 1) reject("nodes", shape.nodes, "must be at least 1");
  if (shape.gpus_per_node < 1) reject("gpus_per_node", shape.gpus_per_node, "must be at least 1");
  if (shape.gpus_per_node > 1) require_positive("nvlink_bw_per_gpu", shape.nvlink_bw_per_gpu);
  require_not_negative("nvswitch_latency", shape.nvswitch_latency);
  if (shape.nics_per_node < 0) reject("nics_per_node", shape.nics_per_node, "must not be negative");
  if (shape.nics_per_node == 0) {
    if (shape.nodes > 1) reject("nics_per_node", 0, "must be at least 1 when nodes > 1");
    return;
  }
  require_positive("pcie_bw", shape.pcie_bw);
  require_not_negative("pcie_latency", shape.pcie_latency);
  require_positive("nic_bw", shape.nic_bw);
  require_not_negative("nic_latency", shape.nic_latency);
  if (!shape.gpu_to_nic.empty()) {
    if (static_cast<int>(shape.gpu_to_nic.size()) != shape.gpus_per_node) {
      reject("gpu_to_nic size", shape.gpu_to_nic.size(), "must equal gpus_per_node");
    }
    for (std::size_t gpu = 0; gpu < shape.gpu_to_nic.size(); ++gpu) {
      const int nic = shape.gpu_to_nic[gpu];
      if (nic < 0 || nic >= shape.nics_per_node) {
        reject("gpu_to_nic[" + std::to_string(gpu) + "]", nic, "must be in [0, nics_per_node)");
      }
    }
  }
  if (shape.tiers < 1 || shape.tiers > 3) reject("tiers", shape.tiers, "must be 1, 2 or 3");
  if (shape.hosts_per_leaf < 1) reject("hosts_per_leaf", shape.hosts_per_leaf, "must be >= 1");
  require_positive("oversubscription", shape.oversubscription);
  require_not_negative("switch_hop_latency", shape.switch_hop_latency);
  if (shape.link_bw != 0) require_positive("link_bw", shape.link_bw);
  if (shape.leaves_per_pod < 0) reject("leaves_per_pod", shape.leaves_per_pod, "must be >= 0");
}

}  // namespace seer::net
