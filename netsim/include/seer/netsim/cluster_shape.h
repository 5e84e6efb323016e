#pragma once

#include <vector>

#include "seer/netsim/types.h"

namespace seer::net {

// Everything needed to build a cluster's network. Bandwidths are bytes per second in each
// direction, latencies are ns. Performance figures have no defaults: they must be given.
struct ClusterShape {
  int nodes = 1;
  int gpus_per_node = 8;

  // Scale-up domain. With an NVSwitch every GPU has one link of nvlink_bw_per_gpu to it; without,
  // every pair of GPUs in a node is linked directly and each link gets an even split of it.
  bool nvswitch = true;
  double nvlink_bw_per_gpu = 0;
  Time nvswitch_latency = 0;  // one NVLink hop (through the NVSwitch, or GPU to GPU in a mesh)

  // Each GPU reaches its NIC over its own PCIe link.
  double pcie_bw = 0;
  Time pcie_latency = 0;

  int nics_per_node = 0;
  double nic_bw = 0;
  Time nic_latency = 0;         // paid once at each NIC a path crosses
  std::vector<int> gpu_to_nic;  // rail map; empty: GPU g uses NIC g * nics_per_node / gpus_per_node

  // Scale-out fat-tree over all NICs.
  int tiers = 2;                  // 1: one switch, 2: leaf/spine, 3: leaf/spine/core
  int hosts_per_leaf = 32;        // NIC ports per leaf switch
  double oversubscription = 1.0;  // leaf downlink : uplink bandwidth
  Time switch_hop_latency = 0;    // paid once at each switch a path crosses
  bool rail_optimized = true;     // NIC k of every node goes to the rail-k leaves
  double link_bw = 0;             // switch-to-switch links; 0 means nic_bw
  int leaves_per_pod = 0;         // 3 tiers: leaves sharing one set of spines; 0: hosts_per_leaf
};

// Throws std::invalid_argument naming the first offending field and its value.
void validate(const ClusterShape& shape);

}  // namespace seer::net
