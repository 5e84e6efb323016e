#include "seer/runtime/cluster.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "presets_data.h"
#include "seer/runtime/units.h"
#include "seer/simcore/host_cpu.h"

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

// A positive number with one of `units` (name, factor), e.g. "1755MHz" or "500W".
double quantity(const YAML::Node& n, const std::string& field,
                std::initializer_list<std::pair<const char*, double>> units) {
  const std::string text = scalar(n, field);
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  std::string unit = text.substr(used);
  unit.erase(0, unit.find_first_not_of(' '));
  std::string known;
  for (const auto& [name, factor] : units) {
    if (used > 0 && unit == name && std::isfinite(value) && value > 0) return value * factor;
    known += (known.empty() ? "" : ", ") + std::string(name);
  }
  throw ClusterError(field + ": '" + text + "' must be a positive number with a unit (" + known +
                     ")");
}

YAML::Node map_field(const YAML::Node& parent, const std::string& where, const std::string& key) {
  YAML::Node n = require(parent, where, key);
  if (!n.IsMap()) throw ClusterError(where + key + ": expected a map of fields");
  return n;
}

bool boolean(const YAML::Node& n, const std::string& field) {
  const std::string text = scalar(n, field);
  if (text == "true" || text == "yes") return true;
  if (text == "false" || text == "no") return false;
  throw ClusterError(field + ": '" + text + "' is not true or false");
}

// node.nics and fabric: the network netsim builds. Without them a node has one NIC per GPU at
// the scale_out bandwidth on a non-blocking two-tier fat-tree.
void parse_network(const YAML::Node& root, const YAML::Node& node, const std::string& kind,
                   ClusterSpec& c) {
  net::ClusterShape& s = c.shape;
  s.nodes = c.nodes;
  s.gpus_per_node = c.gpus_per_node;
  s.nvswitch = kind == "nvswitch";
  s.nvlink_bw_per_gpu = c.links.nvlink_bytes_per_s;
  s.nvswitch_latency = c.links.nvlink_latency;
  s.pcie_bw = c.links.pcie_bytes_per_s;
  s.pcie_latency = c.links.pcie_latency;
  s.nics_per_node = c.gpus_per_node;
  s.nic_bw = c.links.scale_out_bytes_per_s;
  s.nic_latency = c.links.scale_out_latency / 2;
  if (const YAML::Node nics = node["nics"]) {
    if (!nics.IsMap()) throw ClusterError("node.nics: expected a map of fields");
    reject_unknown(nics, "node.nics.", {"count", "bandwidth", "latency", "rails"});
    s.nics_per_node =
        static_cast<int>(integer(require(nics, "node.nics.", "count"), "node.nics.count", 0, 64));
    s.nic_bw =
        parse_bandwidth("node.nics.bandwidth",
                        scalar(require(nics, "node.nics.", "bandwidth"), "node.nics.bandwidth"));
    s.nic_latency = parse_duration_ns(
        "node.nics.latency", scalar(require(nics, "node.nics.", "latency"), "node.nics.latency"));
    if (const YAML::Node rails = nics["rails"]) {
      if (!rails.IsSequence() || static_cast<int>(rails.size()) != c.gpus_per_node) {
        throw ClusterError("node.nics.rails: expected a list of " +
                           std::to_string(c.gpus_per_node) + " NIC indices, one per GPU");
      }
      for (size_t i = 0; i < rails.size(); ++i) {
        s.gpu_to_nic.push_back(static_cast<int>(integer(
            rails[i], "node.nics.rails[" + std::to_string(i) + "]", 0, s.nics_per_node - 1)));
      }
    }
  }
  if (const YAML::Node f = root["fabric"]) {
    if (!f.IsMap()) throw ClusterError("fabric: expected a map of fields");
    reject_unknown(f, "fabric.",
                   {"tiers", "hosts_per_leaf", "oversubscription", "hop_latency", "rail_optimized",
                    "routing", "payload_efficiency", "link_bandwidth"});
    if (f["tiers"]) s.tiers = static_cast<int>(integer(f["tiers"], "fabric.tiers", 1, 3));
    if (f["hosts_per_leaf"]) {
      s.hosts_per_leaf =
          static_cast<int>(integer(f["hosts_per_leaf"], "fabric.hosts_per_leaf", 1, 4096));
    }
    if (f["oversubscription"]) {
      const std::string text = scalar(f["oversubscription"], "fabric.oversubscription");
      char* end = nullptr;
      const double v = std::strtod(text.c_str(), &end);
      if (!end || *end || !(v >= 1)) {
        throw ClusterError("fabric.oversubscription: '" + text + "' must be a number >= 1");
      }
      s.oversubscription = v;
    }
    if (f["hop_latency"]) {
      s.switch_hop_latency =
          parse_duration_ns("fabric.hop_latency", scalar(f["hop_latency"], "fabric.hop_latency"));
    }
    if (f["rail_optimized"])
      s.rail_optimized = boolean(f["rail_optimized"], "fabric.rail_optimized");
    if (f["routing"]) {
      const std::string r = scalar(f["routing"], "fabric.routing");
      if (r != "ecmp" && r != "single-path" && r != "adaptive") {
        throw ClusterError("fabric.routing: '" + r +
                           "' is not one of: ecmp, single-path, adaptive");
      }
      c.ecmp = r != "single-path";
      c.adaptive_routing = r == "adaptive";
    }
    if (f["payload_efficiency"]) {
      c.payload_efficiency = fraction(f["payload_efficiency"], "fabric.payload_efficiency");
    }
    if (f["link_bandwidth"]) {
      s.link_bw = parse_bandwidth("fabric.link_bandwidth",
                                  scalar(f["link_bandwidth"], "fabric.link_bandwidth"));
    }
  }
  if (s.nics_per_node > 0 && !node["scale_out"]) {
    // The simple collective model's rail: one NIC's payload rate, two NIC crossings and the
    // switch hops of a leaf-spine-leaf path.
    c.links.scale_out_bytes_per_s = s.nic_bw * c.payload_efficiency;
    c.links.scale_out_latency = 2 * s.nic_latency + 3 * s.switch_hop_latency;
  }
  try {
    net::validate(s);
  } catch (const std::invalid_argument& e) {
    throw ClusterError(std::string("network: ") + e.what());
  }
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
  reject_unknown(root, "", {"schema", "name", "nodes", "node", "fabric", "network"});
  const int64_t schema = integer(require(root, "", "schema"), "schema", 1, 1000);
  if (schema != 1) {
    throw ClusterError("schema: " + std::to_string(schema) +
                       " is not supported (this Seer reads 1)");
  }
  ClusterSpec c;
  c.source = source;
  c.name = scalar(require(root, "", "name"), "name");
  c.nodes = static_cast<int>(integer(require(root, "", "nodes"), "nodes", 1, 100000));
  if (root["network"]) {
    c.network = scalar(root["network"], "network");
    if (c.network != "flow" && c.network != "ns3") {
      throw ClusterError("network: '" + c.network +
                         "' is not a network model (flow: flow-level max-min sharing, the "
                         "default; ns3: packet-level, with ns-3)");
    }
  }

  const YAML::Node node = map_field(root, "", "node");
  reject_unknown(node, "node.",
                 {"gpu", "gpus", "host_link", "scale_up", "scale_out", "nics", "gpu_memory",
                  "gpu_variant", "host_cpu"});
  const std::string gpu_name = scalar(require(node, "node.", "gpu"), "node.gpu");
  auto gpu = sim::find_gpu(gpu_name);
  if (!gpu) {
    std::string known;
    for (const auto& n : sim::gpu_catalog_names()) known += (known.empty() ? "" : ", ") + n;
    throw ClusterError("node.gpu: '" + gpu_name + "' is not in the GPU catalog (" + known + ")");
  }
  c.gpu = *gpu;
  if (node["host_cpu"]) {
    c.host_cpu = scalar(node["host_cpu"], "node.host_cpu");
    if (!sim::find_host_cpu(c.host_cpu)) {
      std::string known;
      for (const auto& h : sim::host_cpu_catalog()) known += (known.empty() ? "" : ", ") + h.name;
      throw ClusterError("node.host_cpu: '" + c.host_cpu + "' is not in the host CPU catalog (" +
                         known + ")");
    }
  }
  c.gpus_per_node = static_cast<int>(integer(require(node, "node.", "gpus"), "node.gpus", 1, 64));
  if (node["gpu_memory"]) {
    c.gpu.memory_bytes =
        parse_bytes("node.gpu_memory", scalar(node["gpu_memory"], "node.gpu_memory"));
    if (c.gpu.memory_bytes <= c.gpu.context_reserve_bytes) {
      throw ClusterError("node.gpu_memory: must exceed the context reserve");
    }
  }
  if (node["gpu_variant"]) {
    const YAML::Node v = map_field(node, "node.", "gpu_variant");
    const std::string w = "node.gpu_variant.";
    reject_unknown(
        v, w, {"name", "marketing_name", "memory", "memory_bandwidth", "sm_clock", "power_limit"});
    sim::GpuVariant variant;
    if (v["name"]) variant.name = scalar(v["name"], w + "name");
    if (v["marketing_name"])
      variant.marketing_name = scalar(v["marketing_name"], w + "marketing_name");
    if (v["memory"])
      variant.memory_bytes = parse_bytes(w + "memory", scalar(v["memory"], w + "memory"));
    if (v["memory_bandwidth"]) {
      variant.hbm_bytes_per_s = parse_bandwidth(
          w + "memory_bandwidth", scalar(v["memory_bandwidth"], w + "memory_bandwidth"));
    }
    if (v["sm_clock"]) {
      const double khz =
          quantity(v["sm_clock"], w + "sm_clock", {{"MHz", 1e3}, {"GHz", 1e6}, {"kHz", 1.0}});
      if (khz > 1e7) throw ClusterError(w + "sm_clock: above 10 GHz");
      variant.clock_khz = static_cast<int>(std::lround(khz));
    }
    if (v["power_limit"]) {
      variant.power_limit_watts =
          quantity(v["power_limit"], w + "power_limit", {{"W", 1.0}, {"kW", 1e3}});
    }
    try {
      c.gpu = sim::apply_variant(c.gpu, variant);
    } catch (const std::invalid_argument& e) {
      throw ClusterError("node.gpu_variant: " + std::string(e.what()));
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
  parse_network(root, node, kind, c);
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
  if (nodes > 0) {
    c.nodes = nodes;
    c.shape.nodes = nodes;
  }
  return c;
}

}  // namespace seer::rt
