// Cluster descriptions: presets, `NAME:N`, files, and the strict schema-1 parser
// (runtime/presets/README.md).

#include "seer/runtime/cluster.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace seer::rt {
namespace {

template <typename F>
std::string ErrorOf(F f) {
  try {
    f();
  } catch (const ClusterError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw something other than ClusterError: " << e.what();
    return "";
  }
  ADD_FAILURE() << "did not throw";
  return "";
}

#define EXPECT_MESSAGE_HAS(message, part) \
  EXPECT_NE(std::string(message).find(part), std::string::npos) << "message: " << (message)

constexpr const char* kValid = R"(schema: 1
name: mine
nodes: 3
node:
  gpu: A100-SXM-80GB
  gpus: 4
  host_link:
    bandwidth: 32GB/s
    latency: 3us
    pageable_factor: 0.25
  scale_up:
    kind: nvlink-mesh
    bandwidth: 200Gbps
    latency: 700ns
)";

// kValid with the first occurrence of `from` replaced by `to`.
std::string Edit(const std::string& from, const std::string& to) {
  std::string s = kValid;
  const size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

std::string ParseError(const std::string& yaml) {
  return ErrorOf([&] { parse_cluster_yaml(yaml, "test.yaml"); });
}

TEST(ClusterYaml, ParsesEveryField) {
  const ClusterSpec c = parse_cluster_yaml(kValid, "here.yaml");
  EXPECT_EQ(c.name, "mine");
  EXPECT_EQ(c.source, "here.yaml");
  EXPECT_EQ(c.nodes, 3);
  EXPECT_EQ(c.gpus_per_node, 4);
  EXPECT_EQ(c.gpu.name, "A100-SXM-80GB");
  EXPECT_EQ(c.gpu.sm_count, 108);
  EXPECT_EQ(c.gpu.memory_bytes, int64_t{80} << 30);
  EXPECT_DOUBLE_EQ(c.links.pcie_bytes_per_s, 32e9);
  EXPECT_EQ(c.links.pcie_latency, 3000);
  EXPECT_DOUBLE_EQ(c.links.pageable_factor, 0.25);
  EXPECT_DOUBLE_EQ(c.links.nvlink_bytes_per_s, 25e9);  // 200 Gbit/s / 8
  EXPECT_EQ(c.links.nvlink_latency, 700);
  EXPECT_DOUBLE_EQ(c.links.host_memcpy_bytes_per_s, 10e9);  // not in the schema: default
}

TEST(ClusterYaml, OptionalFieldsAndCaseInsensitiveGpu) {
  std::string yaml = Edit("    pageable_factor: 0.25\n", "");
  yaml.replace(yaml.find("A100-SXM-80GB"), 13, "a100-sxm-80gb");
  const ClusterSpec c = parse_cluster_yaml(yaml, "x");
  EXPECT_DOUBLE_EQ(c.links.pageable_factor, 0.5);
  EXPECT_EQ(c.gpu.name, "A100-SXM-80GB");
  EXPECT_DOUBLE_EQ(parse_cluster_yaml(Edit("0.25", "1"), "x").links.pageable_factor, 1.0);
  EXPECT_EQ(parse_cluster_yaml(Edit("nvlink-mesh", "nvswitch"), "x").name, "mine");
  EXPECT_EQ(parse_cluster_yaml(Edit("gpus: 4", "gpus: 64"), "x").gpus_per_node, 64);
  EXPECT_EQ(parse_cluster_yaml(Edit("gpus: 4", "gpus: 1"), "x").gpus_per_node, 1);
  EXPECT_EQ(parse_cluster_yaml(Edit("nodes: 3", "nodes: 100000"), "x").nodes, 100000);
}

TEST(ClusterYaml, NetworkModel) {
  EXPECT_EQ(parse_cluster_yaml(kValid, "x").network, "flow");
  EXPECT_EQ(parse_cluster_yaml(std::string(kValid) + "network: ns3\n", "x").network, "ns3");
  EXPECT_EQ(parse_cluster_yaml(std::string(kValid) + "network: flow\n", "x").network, "flow");
  const std::string m = ParseError(std::string(kValid) + "network: omnet\n");
  EXPECT_MESSAGE_HAS(m, "network: 'omnet' is not a network model");
}

TEST(ClusterYaml, GpuMemoryOverride) {
  const ClusterSpec c =
      parse_cluster_yaml(Edit("  gpus: 4\n", "  gpus: 4\n  gpu_memory: 40GiB\n"), "x");
  EXPECT_EQ(c.gpu.memory_bytes, int64_t{40} << 30);
  EXPECT_EQ(c.gpu.sm_count, 108) << "the rest of the catalog entry stays";
  // Must exceed the 512 MiB context reserve.
  const std::string m = ParseError(Edit("  gpus: 4\n", "  gpus: 4\n  gpu_memory: 512MiB\n"));
  EXPECT_MESSAGE_HAS(m, "node.gpu_memory");
  EXPECT_MESSAGE_HAS(ParseError(Edit("  gpus: 4\n", "  gpus: 4\n  gpu_memory: 40\n")),
                     "node.gpu_memory");
}

TEST(ClusterYaml, GpuVariant) {
  // kValid's GPU is an A100-SXM-80GB (1410 MHz, 400 W): half the clock and a 200 W cap give
  // 0.5 x (200/400)^(1/3) = 0.3969 of its compute peaks; memory and bandwidth as written.
  const sim::GpuSpec base = *sim::find_gpu("A100-SXM-80GB");
  const ClusterSpec c = parse_cluster_yaml(
      Edit("  gpus: 4\n",
           "  gpus: 4\n  gpu_variant:\n    name: A100-slow\n    memory: 64GiB\n"
           "    memory_bandwidth: 1.5TB/s\n    sm_clock: 705MHz\n    power_limit: 200W\n"),
      "x");
  EXPECT_EQ(c.gpu.name, "A100-slow");
  EXPECT_EQ(c.gpu.memory_bytes, int64_t{64} << 30);
  EXPECT_DOUBLE_EQ(c.gpu.hbm_bytes_per_s, 1.5e12);
  EXPECT_EQ(c.gpu.clock_khz, 705000);
  EXPECT_NEAR(c.gpu.bf16_dense_flops / base.bf16_dense_flops, 0.5 * std::cbrt(0.5), 1e-9);
  EXPECT_EQ(c.gpu.sm_count, base.sm_count);

  const auto variant = [](const std::string& field) {
    return Edit("  gpus: 4\n", "  gpus: 4\n  gpu_variant:\n    " + field + "\n");
  };
  EXPECT_MESSAGE_HAS(ParseError(variant("power_limit: 500")), "node.gpu_variant.power_limit");
  EXPECT_MESSAGE_HAS(ParseError(variant("power_limit: -5W")), "positive number");
  EXPECT_MESSAGE_HAS(ParseError(variant("sm_clock: 2THz")), "node.gpu_variant.sm_clock");
  EXPECT_MESSAGE_HAS(ParseError(variant("memory: 1MiB")), "node.gpu_variant");
  EXPECT_MESSAGE_HAS(ParseError(variant("memory_bandwidth: fast")),
                     "node.gpu_variant.memory_bandwidth");
  EXPECT_MESSAGE_HAS(ParseError(variant("voltage: 1V")), "node.gpu_variant.voltage");
}

TEST(ClusterYaml, UnknownFields) {
  std::string m = ParseError(std::string(kValid) + "foo: 1\n");
  EXPECT_MESSAGE_HAS(m, "foo: unknown field");
  EXPECT_MESSAGE_HAS(m, "fabric, name, network, node, nodes, schema");

  m = ParseError(Edit("    latency: 700ns\n", "    latency: 700ns\n    foo: 1\n"));
  EXPECT_MESSAGE_HAS(m, "node.scale_up.foo");
  EXPECT_MESSAGE_HAS(m, "unknown field");
  EXPECT_MESSAGE_HAS(m, "bandwidth, kind, latency");

  m = ParseError(Edit("    latency: 3us\n", "    latency: 3us\n    lanes: 16\n"));
  EXPECT_MESSAGE_HAS(m, "node.host_link.lanes");

  m = ParseError(Edit("  gpus: 4\n", "  gpus: 4\n  cpus: 2\n"));
  EXPECT_MESSAGE_HAS(m, "node.cpus");
}

TEST(ClusterYaml, MissingFields) {
  EXPECT_MESSAGE_HAS(ParseError(Edit("name: mine\n", "")), "name: missing");
  EXPECT_MESSAGE_HAS(ParseError(Edit("schema: 1\n", "")), "schema: missing");
  EXPECT_MESSAGE_HAS(ParseError(Edit("nodes: 3\n", "")), "nodes: missing");
  EXPECT_MESSAGE_HAS(ParseError(Edit("  gpus: 4\n", "")), "node.gpus: missing");
  EXPECT_MESSAGE_HAS(ParseError(Edit("  gpu: A100-SXM-80GB\n", "")), "node.gpu: missing");
  EXPECT_MESSAGE_HAS(ParseError(Edit("    latency: 700ns\n", "")),
                     "node.scale_up.latency: missing");
  EXPECT_MESSAGE_HAS(ParseError(Edit("    kind: nvlink-mesh\n", "")),
                     "node.scale_up.kind: missing");
  EXPECT_MESSAGE_HAS(ParseError(Edit("    bandwidth: 32GB/s\n", "")),
                     "node.host_link.bandwidth: missing");
  EXPECT_MESSAGE_HAS(ParseError("schema: 1\nname: x\nnodes: 1\n"), "node: missing");
  const std::string no_scale_up =
      std::string(kValid).substr(0, std::string(kValid).find("  scale_up"));
  EXPECT_MESSAGE_HAS(ParseError(no_scale_up), "node.scale_up: missing");
}

TEST(ClusterYaml, Schema) {
  EXPECT_MESSAGE_HAS(ParseError(Edit("schema: 1", "schema: 2")), "schema: 2 is not supported");
  EXPECT_MESSAGE_HAS(ParseError(Edit("schema: 1", "schema: one")),
                     "schema: 'one' is not an integer");
  EXPECT_MESSAGE_HAS(ParseError(Edit("schema: 1", "schema: 0")), "schema");
}

TEST(ClusterYaml, UnknownGpuListsTheCatalog) {
  const std::string m = ParseError(Edit("A100-SXM-80GB", "V100-SXM2-32GB"));
  EXPECT_MESSAGE_HAS(m, "node.gpu");
  EXPECT_MESSAGE_HAS(m, "'V100-SXM2-32GB'");
  EXPECT_MESSAGE_HAS(m, "H100-SXM-80GB");
  EXPECT_MESSAGE_HAS(m, "A100-SXM-80GB");
  EXPECT_MESSAGE_HAS(m, "H200-SXM-141GB");
}

TEST(ClusterYaml, IntegerFields) {
  std::string m = ParseError(Edit("gpus: 4", "gpus: 0"));
  EXPECT_MESSAGE_HAS(m, "node.gpus: 0 is out of range [1, 64]");
  EXPECT_MESSAGE_HAS(ParseError(Edit("gpus: 4", "gpus: 65")), "node.gpus: 65 is out of range");
  EXPECT_MESSAGE_HAS(ParseError(Edit("gpus: 4", "gpus: -1")), "node.gpus");
  EXPECT_MESSAGE_HAS(ParseError(Edit("nodes: 3", "nodes: 2.5")), "nodes: '2.5' is not an integer");
  EXPECT_MESSAGE_HAS(ParseError(Edit("nodes: 3", "nodes: two")), "nodes: 'two' is not an integer");
  EXPECT_MESSAGE_HAS(ParseError(Edit("nodes: 3", "nodes: 4x")), "nodes: '4x' is not an integer");
  EXPECT_MESSAGE_HAS(ParseError(Edit("nodes: 3", "nodes: 0")), "nodes: 0 is out of range");
  EXPECT_MESSAGE_HAS(ParseError(Edit("nodes: 3", "nodes: 100001")),
                     "nodes: 100001 is out of range");
  EXPECT_MESSAGE_HAS(ParseError(Edit("nodes: 3", "nodes: 99999999999999999999")), "nodes");
  EXPECT_MESSAGE_HAS(ParseError(Edit("nodes: 3", "nodes: [1, 2]")), "nodes: expected a value");
}

TEST(ClusterYaml, ValuesWithUnitsNameTheirField) {
  std::string m = ParseError(Edit("bandwidth: 200Gbps", "bandwidth: 200"));
  EXPECT_MESSAGE_HAS(m, "node.scale_up.bandwidth");
  EXPECT_MESSAGE_HAS(m, "'200'");
  m = ParseError(Edit("latency: 3us", "latency: -3us"));
  EXPECT_MESSAGE_HAS(m, "node.host_link.latency");
  EXPECT_MESSAGE_HAS(m, "'-3us'");
  m = ParseError(Edit("bandwidth: 32GB/s", "bandwidth: 32GiBps"));
  EXPECT_MESSAGE_HAS(m, "node.host_link.bandwidth");
  m = ParseError(Edit("0.25", "0"));
  EXPECT_MESSAGE_HAS(m, "node.host_link.pageable_factor");
  EXPECT_MESSAGE_HAS(ParseError(Edit("0.25", "1.5")), "node.host_link.pageable_factor: '1.5'");
  EXPECT_MESSAGE_HAS(ParseError(Edit("0.25", "half")), "node.host_link.pageable_factor: 'half'");
  m = ParseError(Edit("nvlink-mesh", "pcie"));
  EXPECT_MESSAGE_HAS(m, "node.scale_up.kind: 'pcie'");
  EXPECT_MESSAGE_HAS(m, "nvswitch, nvlink-mesh");
}

TEST(ClusterYaml, WrongShapes) {
  EXPECT_MESSAGE_HAS(ParseError("schema: [1\n"), "test.yaml: not valid YAML");
  EXPECT_MESSAGE_HAS(ParseError("- 1\n- 2\n"),
                     "test.yaml: expected a map of fields at the top level");
  EXPECT_MESSAGE_HAS(ParseError(""), "test.yaml: expected a map");
  EXPECT_MESSAGE_HAS(ParseError("just text"), "test.yaml: expected a map");
  EXPECT_MESSAGE_HAS(ParseError("schema: 1\nname: x\nnodes: 1\nnode: 5\n"),
                     "node: expected a map of fields");
  EXPECT_MESSAGE_HAS(
      ParseError(Edit("  host_link:\n    bandwidth: 32GB/s\n    latency: 3us\n    pageable_factor: "
                      "0.25\n",
                      "  host_link: 5\n")),
      "node.host_link: expected a map of fields");
  EXPECT_MESSAGE_HAS(ParseError(Edit("name: mine", "name: [a, b]")), "name: expected a value");
}

// A mapping key that is not a scalar (`? [a, b]`) makes yaml-cpp's `as<std::string>()` throw
// YAML::TypedBadConversion out of parse_cluster_yaml: expected a ClusterError like every other
// malformed description (the frontend only prints ClusterError messages as cluster errors).
TEST(ClusterYaml, NonScalarKeyIsAClusterError) { ParseError(std::string(kValid) + "[a, b]: 1\n"); }

// A latency beyond int64 nanoseconds (1e12 s) parses to INT64_MIN (llround overflow) and the
// cluster loads with a negative NVLink latency. Expected: a ClusterError naming the field.
TEST(ClusterYaml, OutOfRangeLatencyIsRejected) {
  const std::string m = ParseError(Edit("latency: 700ns", "latency: 1e12s"));
  EXPECT_MESSAGE_HAS(m, "node.scale_up.latency");
}

// --- presets ------------------------------------------------------------------------------

TEST(ClusterPresets, GrandTetonUsesThePowerLimitedH100) {
  const ClusterSpec c = load_cluster("grand-teton");
  EXPECT_EQ(c.gpu.name, "H100-SXM-96GB-500W");
  EXPECT_EQ(c.gpus_per_node, 8);
  EXPECT_EQ(c.gpu.memory_bytes, int64_t{96} << 30);
}

TEST(ClusterPresets, Names) {
  EXPECT_EQ(preset_names(), (std::vector<std::string>{"dgx-a100", "dgx-h100", "grand-teton",
                                                      "hgx-h200", "test-fabric"}));
  EXPECT_NE(preset_yaml("dgx-h100").find("name: dgx-h100"), std::string::npos);
  const std::string m = ErrorOf([] { preset_yaml("dgx-b200"); });
  EXPECT_MESSAGE_HAS(m, "'dgx-b200'");
}

TEST(ClusterPresets, DgxH100) {
  const ClusterSpec c = load_cluster("dgx-h100");
  EXPECT_EQ(c.name, "dgx-h100");
  EXPECT_EQ(c.source, "dgx-h100");
  EXPECT_EQ(c.nodes, 1);
  EXPECT_EQ(c.gpus_per_node, 8);
  EXPECT_EQ(c.gpu.name, "H100-SXM-80GB");
  EXPECT_EQ(c.gpu.memory_bytes, int64_t{80} << 30);
  EXPECT_DOUBLE_EQ(c.links.pcie_bytes_per_s, 55e9);
  EXPECT_EQ(c.links.pcie_latency, 2000);
  EXPECT_DOUBLE_EQ(c.links.pageable_factor, 0.5);
  EXPECT_DOUBLE_EQ(c.links.nvlink_bytes_per_s, 450e9);
  EXPECT_EQ(c.links.nvlink_latency, 1000);
}

TEST(ClusterPresets, DgxA100) {
  const ClusterSpec c = load_cluster("dgx-a100");
  EXPECT_EQ(c.name, "dgx-a100");
  EXPECT_EQ(c.nodes, 1);
  EXPECT_EQ(c.gpus_per_node, 8);
  EXPECT_EQ(c.gpu.name, "A100-SXM-80GB");
  EXPECT_DOUBLE_EQ(c.links.pcie_bytes_per_s, 25e9);
  EXPECT_EQ(c.links.pcie_latency, 2000);
  EXPECT_DOUBLE_EQ(c.links.pageable_factor, 0.5);
  EXPECT_DOUBLE_EQ(c.links.nvlink_bytes_per_s, 300e9);
  EXPECT_EQ(c.links.nvlink_latency, 1000);
}

TEST(ClusterPresets, HgxH200) {
  const ClusterSpec c = load_cluster("hgx-h200");
  EXPECT_EQ(c.name, "hgx-h200");
  EXPECT_EQ(c.nodes, 1);
  EXPECT_EQ(c.gpus_per_node, 8);
  EXPECT_EQ(c.gpu.name, "H200-SXM-141GB");
  EXPECT_EQ(c.gpu.memory_bytes, int64_t{141000000000});
  EXPECT_DOUBLE_EQ(c.links.pcie_bytes_per_s, 55e9);
  EXPECT_DOUBLE_EQ(c.links.nvlink_bytes_per_s, 450e9);
  EXPECT_EQ(c.links.nvlink_latency, 1000);
}

TEST(ClusterPresets, TestFabric) {
  const ClusterSpec c = load_cluster("test-fabric");
  EXPECT_EQ(c.name, "test-fabric");
  EXPECT_EQ(c.nodes, 2);
  EXPECT_EQ(c.gpus_per_node, 2);
  EXPECT_EQ(c.gpu.name, "H100-SXM-80GB");
  EXPECT_DOUBLE_EQ(c.links.pcie_bytes_per_s, 50e9);
  EXPECT_EQ(c.links.pcie_latency, 2000);
  EXPECT_DOUBLE_EQ(c.links.pageable_factor, 0.5);
  EXPECT_DOUBLE_EQ(c.links.nvlink_bytes_per_s, 400e9);
  EXPECT_EQ(c.links.nvlink_latency, 1000);
}

TEST(ClusterPresets, EveryPresetParses) {
  for (const std::string& name : preset_names()) {
    SCOPED_TRACE(name);
    const ClusterSpec c = load_cluster(name);
    EXPECT_EQ(c.name, name) << "preset file name and `name:` agree";
    EXPECT_GE(c.nodes, 1);
    EXPECT_GE(c.gpus_per_node, 1);
  }
}

TEST(ClusterPresets, NodeCountSuffix) {
  ClusterSpec c = load_cluster("dgx-h100:4");
  EXPECT_EQ(c.nodes, 4);
  EXPECT_EQ(c.name, "dgx-h100");
  EXPECT_EQ(c.source, "dgx-h100:4");
  EXPECT_EQ(c.gpus_per_node, 8);
  c = load_cluster("test-fabric:1");
  EXPECT_EQ(c.nodes, 1) << "the suffix replaces the preset's own node count";
  EXPECT_EQ(load_cluster("dgx-a100:100000").nodes, 100000);
}

TEST(ClusterPresets, BadNodeCountSuffix) {
  for (const std::string what :
       {"dgx-h100:0", "dgx-h100:x", "dgx-h100:", "dgx-h100:4x", "dgx-h100:-1", "dgx-h100:100001"}) {
    SCOPED_TRACE(what);
    const std::string m = ErrorOf([&] { load_cluster(what); });
    EXPECT_MESSAGE_HAS(m, "'" + what + "'");
    EXPECT_MESSAGE_HAS(m, "node count");
  }
}

TEST(ClusterPresets, UnknownPresetListsPresets) {
  for (const std::string what : {"dgx-b200", "dgx-b200:2"}) {
    SCOPED_TRACE(what);
    const std::string m = ErrorOf([&] { load_cluster(what); });
    EXPECT_MESSAGE_HAS(m, "'dgx-b200'");
    for (const std::string& p : preset_names()) EXPECT_MESSAGE_HAS(m, p);
  }
}

TEST(ClusterFiles, MissingFile) {
  for (const std::string what : {"/nonexistent/dir/cluster.yaml", "missing-cluster.yaml",
                                 "missing-cluster.yml", "./dgx-h100"}) {
    SCOPED_TRACE(what);
    const std::string m = ErrorOf([&] { load_cluster(what); });
    EXPECT_MESSAGE_HAS(m, "cannot read file '" + what + "'");
  }
}

TEST(ClusterFiles, ReadsAFileAndNamesItInErrors) {
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / ("seer-cluster-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string good = (dir / "good.yaml").string();
  const std::string bad = (dir / "bad.yaml").string();
  std::ofstream(good) << kValid;
  std::ofstream(bad) << "schema: [1\n";
  const ClusterSpec c = load_cluster(good);
  EXPECT_EQ(c.name, "mine");
  EXPECT_EQ(c.source, good);
  EXPECT_EQ(c.nodes, 3);
  EXPECT_MESSAGE_HAS(ErrorOf([&] { load_cluster(bad); }), bad + ": not valid YAML");
  // A directory is not a cluster file either.
  EXPECT_MESSAGE_HAS(ErrorOf([&] { load_cluster(dir.string()); }), dir.string());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace seer::rt
