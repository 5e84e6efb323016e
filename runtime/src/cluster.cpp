#include "seer/runtime/cluster.h"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <set>
#include <sstream>

#include "presets_data.h"
#include "seer/runtime/units.h"

namespace seer::rt {
namespace {

void reject_unknown(const YAML::Node& map, const std::string& where,
                    const std::set<std::string>& known) {
  for (const auto& kv : map) {
    if (!kv.first.IsScalar()) throw ClusterError(where + ": field names must be plain words");
    const std::string key = kv.first.Scalar();
    if (!known.count(key)) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      throw ClusterError(where + key + ": unknown field (expected one of: " + list + ")");
    }
  }
}

YAML::Node require(const YAML::Node& map, const std::string& where, const std::string& key) {
  const YAML::Node n = map[key];
  if (!n) throw ClusterError(where + key + ": missing");
  return n;
}

std::string scalar(const YAML::Node& n, const std::string& field) {
  if (!n.IsScalar()) throw ClusterError(field + ": expected a value, not a list or map");
  return n.Scalar();
}

int64_t integer(const YAML::Node& n, const std::string& field, int64_t lo, int64_t hi) {
  const std::string text = scalar(n, field);
  size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty()) {
    throw ClusterError(field + ": '" + text + "' is not an integer");
  }
  if (v < lo || v > hi) {
    throw ClusterError(field + ": " + text + " is out of range [" + std::to_string(lo) + ", " +
                       std::to_string(hi) + "]");
  }
  return v;
}

double fraction(const YAML::Node& n, const std::string& field) {
  const std::string text = scalar(n, field);
  size_t used = 0;
  double v = -1;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || !(v > 0 && v <= 1)) {
    throw ClusterError(field + ": '" + text + "' must be a number in (0, 1]");
  }
  return v;
}

YAML::Node map_field(const YAML::Node& parent, const std::string& where, const std::string& key) {
  YAML::Node n = require(parent, where, key);
  if (!n.IsMap()) throw ClusterError(where + key + ": expected a map of fields");
  return n;
}

}  // namespace

ClusterSpec parse_cluster_yaml(const std::string& text, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ClusterError(source + ": not valid YAML: " + e.what());
  }
  if (!root.IsMap()) throw ClusterError(source + ": expected a map of fields at the top level");
  reject_unknown(root, "", {"schema", "name", "nodes", "node"});
  const int64_t schema = integer(require(root, "", "schema"), "schema", 1, 1000);
  if (schema != 1) {
    throw ClusterError("schema: " + std::to_string(schema) +
                       " is not supported (this Seer reads 1)");
  }
  ClusterSpec c;
  c.source = source;
  c.name = scalar(require(root, "", "name"), "name");
  c.nodes = static_cast<int>(integer(require(root, "", "nodes"), "nodes", 1, 100000));

  const YAML::Node node = map_field(root, "", "node");
  reject_unknown(node, "node.",
                 {"gpu", "gpus", "host_link", "scale_up", "scale_out", "gpu_memory"});
  const std::string gpu_name = scalar(require(node, "node.", "gpu"), "node.gpu");
  auto gpu = sim::find_gpu(gpu_name);
  if (!gpu) {
    std::string known;
    for (const auto& n : sim::gpu_catalog_names()) known += (known.empty() ? "" : ", ") + n;
    throw ClusterError("node.gpu: '" + gpu_name + "' is not in the GPU catalog (" + known + ")");
  }
  c.gpu = *gpu;
  c.gpus_per_node = static_cast<int>(integer(require(node, "node.", "gpus"), "node.gpus", 1, 64));
  if (node["gpu_memory"]) {
    c.gpu.memory_bytes =
        parse_bytes("node.gpu_memory", scalar(node["gpu_memory"], "node.gpu_memory"));
    if (c.gpu.memory_bytes <= c.gpu.context_reserve_bytes) {
      throw ClusterError("node.gpu_memory: must exceed the context reserve");
    }
  }

  const YAML::Node host = map_field(node, "node.", "host_link");
  reject_unknown(host, "node.host_link.", {"bandwidth", "latency", "pageable_factor"});
  c.links.pcie_bytes_per_s = parse_bandwidth(
      "node.host_link.bandwidth",
      scalar(require(host, "node.host_link.", "bandwidth"), "node.host_link.bandwidth"));
  c.links.pcie_latency = parse_duration_ns(
      "node.host_link.latency",
      scalar(require(host, "node.host_link.", "latency"), "node.host_link.latency"));
  if (host["pageable_factor"]) {
    c.links.pageable_factor = fraction(host["pageable_factor"], "node.host_link.pageable_factor");
  }

  const YAML::Node up = map_field(node, "node.", "scale_up");
  reject_unknown(up, "node.scale_up.", {"kind", "bandwidth", "latency"});
  const std::string kind = scalar(require(up, "node.scale_up.", "kind"), "node.scale_up.kind");
  if (kind != "nvswitch" && kind != "nvlink-mesh") {
    throw ClusterError("node.scale_up.kind: '" + kind + "' is not one of: nvswitch, nvlink-mesh");
  }
  c.links.nvlink_bytes_per_s = parse_bandwidth(
      "node.scale_up.bandwidth",
      scalar(require(up, "node.scale_up.", "bandwidth"), "node.scale_up.bandwidth"));
  c.links.nvlink_latency =
      parse_duration_ns("node.scale_up.latency",
                        scalar(require(up, "node.scale_up.", "latency"), "node.scale_up.latency"));
  if (node["scale_out"]) {
    const YAML::Node out = node["scale_out"];
    if (!out.IsMap()) throw ClusterError("node.scale_out: expected a map of fields");
    reject_unknown(out, "node.scale_out.", {"bandwidth", "latency"});
    c.links.scale_out_bytes_per_s = parse_bandwidth(
        "node.scale_out.bandwidth",
        scalar(require(out, "node.scale_out.", "bandwidth"), "node.scale_out.bandwidth"));
    c.links.scale_out_latency = parse_duration_ns(
        "node.scale_out.latency",
        scalar(require(out, "node.scale_out.", "latency"), "node.scale_out.latency"));
  }
  return c;
}

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const auto& p : kPresets) names.emplace_back(p.name);
  return names;
}

std::string preset_yaml(const std::string& name) {
  for (const auto& p : kPresets) {
    if (name == p.name) return p.yaml;
  }
  std::string known;
  for (const auto& n : preset_names()) known += (known.empty() ? "" : ", ") + n;
  throw ClusterError("--cluster: '" + name + "' is neither a preset (" + known + ") nor a file");
}

ClusterSpec load_cluster(const std::string& what) {
  std::ifstream file(what);
  if (file) {
    std::stringstream ss;
    ss << file.rdbuf();
    return parse_cluster_yaml(ss.str(), what);
  }
  if (what.find('/') != std::string::npos || what.ends_with(".yaml") || what.ends_with(".yml")) {
    throw ClusterError("--cluster: cannot read file '" + what + "'");
  }
  std::string name = what;
  int nodes = -1;
  if (auto colon = what.find(':'); colon != std::string::npos) {
    name = what.substr(0, colon);
    const std::string count = what.substr(colon + 1);
    size_t used = 0;
    try {
      nodes = std::stoi(count, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != count.size() || count.empty() || nodes < 1 || nodes > 100000) {
      throw ClusterError("--cluster: '" + what +
                         "': the node count after ':' must be an integer ≥ 1");
    }
  }
  ClusterSpec c = parse_cluster_yaml(preset_yaml(name), name);
  c.source = what;
  if (nodes > 0) c.nodes = nodes;
  return c;
}

}  // namespace seer::rt
