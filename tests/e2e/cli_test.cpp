// The `seer` command line: exit codes, help, presets, and clear errors for bad cluster files.

#include "e2e_util.h"

namespace seer::e2e {
namespace {

TEST(Cli, RunReturnsTheProgramsExitCode) {
  EXPECT_EQ(seer({"run", "--", "true"}).exit_code, 0);
  EXPECT_EQ(seer({"run", "--", "false"}).exit_code, 1);
  EXPECT_EQ(seer({"run", "--", "sh", "-c", "exit 42"}).exit_code, 42);
  // Killed by a signal: 128 + the signal number, like a shell.
  EXPECT_EQ(seer({"run", "--", "sh", "-c", "kill -TERM $$"}).exit_code, 128 + 15);
  // The program's output passes through.
  const Outcome o = seer({"run", "--quiet", "--", "sh", "-c", "echo to-out; echo to-err >&2"});
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_EQ(o.out, "to-out\n");
  EXPECT_NE(o.err.find("to-err\n"), std::string::npos);
}

TEST(Cli, MissingProgramGives127) {
  const Outcome o = seer({"run", "--", "/nonexistent/seer-e2e-no-such-program"});
  EXPECT_EQ(o.exit_code, 127) << o.describe();
  EXPECT_NE(o.err.find("seer-e2e-no-such-program"), std::string::npos) << o.describe();
}

TEST(Cli, ExitCodeAndCommandInSummary) {
  TempDir dir;
  const Outcome o = seer_run("dgx-h100", dir.file("out"), {"sh", "-c", "exit 3"});
  EXPECT_EQ(o.exit_code, 3) << o.describe();
  const nlohmann::json s = read_json(dir.file("out/summary.json"));
  EXPECT_EQ(s["schema"], "seer.summary");
  EXPECT_EQ(s["schema_version"], 1);
  EXPECT_EQ(s["exit_code"], 3);
  EXPECT_EQ(s["command"], nlohmann::json::array({"sh", "-c", "exit 3"}));
  EXPECT_EQ(s["host_time"], "modeled");
  // No CUDA call: no process joined the simulation.
  EXPECT_TRUE(s["processes"].empty()) << s.dump(2);
  const nlohmann::json r = read_json(dir.file("out/run.json"));
  EXPECT_EQ(r["schema"], "seer.run");
  EXPECT_TRUE(read_json(dir.file("out/trace.json")).contains("traceEvents"));
}

TEST(Cli, QuietSuppressesTheReport) {
  const Outcome loud = seer({"run", "--", "true"});
  EXPECT_NE(loud.err.find("== seer report =="), std::string::npos) << loud.describe();
  const Outcome quiet = seer({"run", "--quiet", "--", "true"});
  EXPECT_EQ(quiet.err.find("== seer report =="), std::string::npos) << quiet.describe();
}

TEST(Cli, Help) {
  const Outcome top = seer({"--help"});
  EXPECT_EQ(top.exit_code, 0) << top.describe();
  EXPECT_NE((top.out + top.err).find("run"), std::string::npos) << top.describe();
  const Outcome run = seer({"run", "--help"});
  EXPECT_EQ(run.exit_code, 0) << run.describe();
  for (const char* option : {"--cluster", "--out", "--host-time", "--quiet"}) {
    EXPECT_NE((run.out + run.err).find(option), std::string::npos) << option << run.describe();
  }
}

TEST(Cli, UsageErrorsExit2) {
  EXPECT_EQ(seer({}).exit_code, 2);
  EXPECT_EQ(seer({"frobnicate"}).exit_code, 2);
  EXPECT_EQ(seer({"run"}).exit_code, 2);
  EXPECT_EQ(seer({"run", "--host-time", "sometimes", "--", "true"}).exit_code, 2);
  EXPECT_EQ(seer({"run", "--torch-traces", "--", "true"}).exit_code, 2);  // needs --out
  const Outcome bad_version = seer({"run", "--", "true"}, {{"SEER_NCCL_VERSION", "2.28"}});
  EXPECT_EQ(bad_version.exit_code, 2);
  EXPECT_NE(bad_version.err.find("SEER_NCCL_VERSION: '2.28' is not an NCCL version code"),
            std::string::npos)
      << bad_version.err;
  const Outcome bad_model = seer({"run", "--", "true"}, {{"SEER_NCCL_MODEL", "fancy"}});
  EXPECT_EQ(bad_model.exit_code, 2);
  // An empty variable is as good as an unset one.
  EXPECT_EQ(seer({"run", "--quiet", "--", "true"}, {{"SEER_NCCL_VERSION", ""}}).exit_code, 0);
}

TEST(Cli, Presets) {
  const Outcome list = seer({"presets"});
  EXPECT_EQ(list.exit_code, 0) << list.describe();
  for (const char* name : {"dgx-h100", "dgx-a100", "grand-teton", "hgx-h200", "test-fabric"}) {
    EXPECT_NE(list.out.find(name), std::string::npos) << name << list.describe();
  }
  const Outcome one = seer({"presets", "test-fabric"});
  EXPECT_EQ(one.exit_code, 0) << one.describe();
  EXPECT_NE(one.out.find("name: test-fabric"), std::string::npos) << one.describe();
  EXPECT_NE(one.out.find("50GB/s"), std::string::npos) << one.describe();
  const Outcome bad = seer({"presets", "no-such-preset"});
  EXPECT_EQ(bad.exit_code, 2) << bad.describe();
  EXPECT_NE(bad.err.find("no-such-preset"), std::string::npos) << bad.describe();
}

TEST(Cli, PrintedPresetIsAUsableClusterFile) {
  // `seer presets dgx-h100` saved to a file and passed back gives the same simulated times.
  TempDir dir;
  const Outcome yaml = seer({"presets", "dgx-h100"});
  ASSERT_EQ(yaml.exit_code, 0);
  write_file(dir.file("mine.yaml"), yaml.out);
  const Outcome a = seer_run("dgx-h100", dir.file("a"), {program("copies"), "1"});
  const Outcome b = seer_run(dir.file("mine.yaml"), dir.file("b"), {program("copies"), "1"});
  ASSERT_EQ(a.exit_code, 0) << a.describe();
  ASSERT_EQ(b.exit_code, 0) << b.describe();
  EXPECT_EQ(a.results, b.results);
}

// A bad --cluster: exit status 2 before the program runs, with a message naming the culprit.
struct BadCluster {
  const char* label;
  const char* yaml;     // written to a file when not null
  const char* cluster;  // used as given when yaml is null
  std::vector<std::string> must_mention;
};

void PrintTo(const BadCluster& c, std::ostream* os) { *os << c.label; }

class BadClusters : public ::testing::TestWithParam<BadCluster> {};

const char* const kGoodNode =
    "  gpu: H100-SXM-80GB\n"
    "  gpus: 8\n"
    "  host_link: {bandwidth: 55GB/s, latency: 2us, pageable_factor: 0.5}\n"
    "  scale_up: {kind: nvswitch, bandwidth: 450GB/s, latency: 1us}\n";

std::string with_node(const std::string& top, const std::string& node) {
  return "schema: 1\nname: broken\n" + top + "node:\n" + node;
}

TEST_P(BadClusters, Exit2NamingTheField) {
  const BadCluster& c = GetParam();
  TempDir dir;
  std::string cluster = c.cluster ? c.cluster : "";
  if (c.yaml) {
    cluster = dir.file("cluster.yaml");
    write_file(cluster, c.yaml);
  }
  const Outcome o = seer({"run", "--cluster", cluster, "--", "sh", "-c", "echo PROGRAM-RAN"});
  EXPECT_EQ(o.exit_code, 2) << o.describe();
  EXPECT_EQ(o.out.find("PROGRAM-RAN"), std::string::npos) << o.describe();
  for (const std::string& m : c.must_mention) {
    EXPECT_NE(o.err.find(m), std::string::npos) << "missing '" << m << "'\n" << o.describe();
  }
}

const std::string kUnitError =
    with_node("nodes: 1\n",
              "  gpu: H100-SXM-80GB\n  gpus: 8\n"
              "  host_link: {bandwidth: 55 parsecs, latency: 2us}\n"
              "  scale_up: {kind: nvswitch, bandwidth: 450GB/s, latency: 1us}\n");
const std::string kBadLatency =
    with_node("nodes: 1\n",
              "  gpu: H100-SXM-80GB\n  gpus: 8\n"
              "  host_link: {bandwidth: 55GB/s, latency: 2 fortnights}\n"
              "  scale_up: {kind: nvswitch, bandwidth: 450GB/s, latency: 1us}\n");
const std::string kUnknownField =
    with_node("nodes: 1\n", std::string(kGoodNode) + "  colour: red\n");
const std::string kZeroNodes = with_node("nodes: 0\n", kGoodNode);
const std::string kBadGpu =
    with_node("nodes: 1\n",
              "  gpu: H999\n  gpus: 8\n"
              "  host_link: {bandwidth: 55GB/s, latency: 2us}\n"
              "  scale_up: {kind: nvswitch, bandwidth: 450GB/s, latency: 1us}\n");
const std::string kMissingScaleUp = with_node("nodes: 1\n",
                                              "  gpu: H100-SXM-80GB\n  gpus: 8\n"
                                              "  host_link: {bandwidth: 55GB/s, latency: 2us}\n");
const std::string kBadFactor =
    with_node("nodes: 1\n",
              "  gpu: H100-SXM-80GB\n  gpus: 8\n"
              "  host_link: {bandwidth: 55GB/s, latency: 2us, pageable_factor: 1.5}\n"
              "  scale_up: {kind: nvswitch, bandwidth: 450GB/s, latency: 1us}\n");
const std::string kTinyMemory =
    with_node("nodes: 1\n", std::string(kGoodNode) + "  gpu_memory: 100MiB\n");
const std::string kBadKind =
    with_node("nodes: 1\n",
              "  gpu: H100-SXM-80GB\n  gpus: 8\n"
              "  host_link: {bandwidth: 55GB/s, latency: 2us}\n"
              "  scale_up: {kind: carrier-pigeon, bandwidth: 450GB/s, latency: 1us}\n");
const std::string kBadSchema = "schema: 7\nname: x\nnodes: 1\nnode:\n" + std::string(kGoodNode);

INSTANTIATE_TEST_SUITE_P(
    Cli, BadClusters,
    ::testing::Values(
        BadCluster{"UnknownPreset", nullptr, "no-such-preset", {"no-such-preset"}},
        BadCluster{"ZeroNodeCount", nullptr, "dgx-h100:0", {"dgx-h100:0"}},
        BadCluster{"NodeCountNotANumber", nullptr, "dgx-h100:many", {"dgx-h100:many"}},
        BadCluster{"MissingFile", nullptr, "/nonexistent/seer-e2e.yaml", {"seer-e2e.yaml"}},
        BadCluster{"MalformedYaml", "schema: 1\nname: [unclosed\nnodes: 1\n", nullptr, {"YAML"}},
        BadCluster{
            "UnitError", kUnitError.c_str(), nullptr, {"node.host_link.bandwidth", "55 parsecs"}},
        BadCluster{"BadDurationUnit",
                   kBadLatency.c_str(),
                   nullptr,
                   {"node.host_link.latency", "2 fortnights"}},
        BadCluster{"UnknownField", kUnknownField.c_str(), nullptr, {"colour"}},
        BadCluster{"ZeroNodes", kZeroNodes.c_str(), nullptr, {"nodes", "0"}},
        BadCluster{"UnknownGpu", kBadGpu.c_str(), nullptr, {"node.gpu", "H999"}},
        BadCluster{"MissingScaleUp", kMissingScaleUp.c_str(), nullptr, {"scale_up", "missing"}},
        BadCluster{
            "PageableFactorAboveOne", kBadFactor.c_str(), nullptr, {"pageable_factor", "1.5"}},
        BadCluster{"MemoryBelowReserve", kTinyMemory.c_str(), nullptr, {"node.gpu_memory"}},
        BadCluster{"UnknownScaleUpKind",
                   kBadKind.c_str(),
                   nullptr,
                   {"node.scale_up.kind", "carrier-pigeon"}},
        BadCluster{"UnsupportedSchema", kBadSchema.c_str(), nullptr, {"schema", "7"}}),
    [](const auto& info) { return std::string(info.param.label); });

}  // namespace
}  // namespace seer::e2e
