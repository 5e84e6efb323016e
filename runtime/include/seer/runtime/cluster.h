#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "seer/netsim/cluster_shape.h"
#include "seer/simcore/cost_models.h"
#include "seer/simcore/gpu_spec.h"

namespace seer::rt {

// A cluster description as parsed from YAML (see runtime/presets/README.md for the schema).
struct ClusterSpec {
  std::string name;
  std::string source;  // preset name or file path it came from
  int nodes = 1;
  int gpus_per_node = 1;
  sim::GpuSpec gpu;
  sim::NodeLinks links;
  // The network: scale-up domain, NIC rails and the scale-out fat-tree (netsim builds it).
  net::ClusterShape shape;
  double payload_efficiency = 0.95;  // share of NIC line rate NCCL payload reaches
  bool ecmp = true;
  bool adaptive_routing = false;  // fabric.routing: adaptive (implies ECMP's path choice)
  std::string network = "flow";   // the network model: "flow" (netsim) or "ns3" (packet-level)
  std::string host_cpu;           // node.host_cpu: a simcore host CPU catalog name, or ""
};

// Errors in a cluster description: the message names the field and the offending value.
class ClusterError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `what` is a preset name, `NAME:N` (N nodes of preset NAME) or a path to a YAML file.
ClusterSpec load_cluster(const std::string& what);
ClusterSpec parse_cluster_yaml(const std::string& text, const std::string& source);

std::vector<std::string> preset_names();
// The YAML text of a preset; throws ClusterError when unknown.
std::string preset_yaml(const std::string& name);

}  // namespace seer::rt
