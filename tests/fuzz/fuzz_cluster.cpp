// Cluster descriptions (runtime/include/seer/runtime/cluster.h): any text given as a --cluster
// YAML file either parses or throws ClusterError (never another exception, never a crash).

#include <cstdint>
#include <string>

#include "seer/runtime/cluster.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  seer::rt::ClusterSpec spec;
  try {
    spec = seer::rt::parse_cluster_yaml(text, "fuzz.yaml");
  } catch (const seer::rt::ClusterError&) {
    return 0;
  }
  if (spec.nodes < 1 || spec.gpus_per_node < 1) std::abort();
  return 0;
}
