#include "check_util.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace seer::check_test {
namespace {

// Prints the JUnit file as JSON; xml.etree (expat) refuses malformed XML with a traceback.
constexpr const char* kJUnitReader = R"PY(
import json, sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suites = root.findall("testsuite")
out = {"root": root.tag, "root_attrs": dict(root.attrib), "suites": len(suites),
       "suite_attrs": {}, "properties": {}, "cases": []}
if suites:
    s = suites[0]
    out["suite_attrs"] = dict(s.attrib)
    out["properties"] = {p.get("name"): p.get("value") for p in s.iter("property")}
    for c in s.findall("testcase"):
        f, e = c.find("failure"), c.find("error")
        bad = f if f is not None else e
        out["cases"].append({
            "name": c.get("name"), "classname": c.get("classname"),
            "status": "failure" if f is not None else "error" if e is not None else "pass",
            "message": bad.get("message") if bad is not None else ""})
print(json.dumps(out))
)PY";

}  // namespace

// Process running, temporary directories and file helpers are the end-to-end tests' own
// (tests/e2e/e2e_util.h); these wrappers keep the check tests' names.
std::string Result::describe() const {
  e2e::Outcome o;
  o.exit_code = exit_code;
  o.timed_out = timed_out;
  o.out = out;
  o.err = err;
  return o.describe();
}

Result run(const std::vector<std::string>& argv, int timeout_s) {
  const e2e::Outcome o = e2e::run_command(argv, {}, timeout_s);
  return Result{o.exit_code, o.timed_out, o.out, o.err};
}

Result seer(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {SEER_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv);
}

std::string read_file(const std::string& path) { return e2e::read_file(path); }

void write_file(const std::string& path, const std::string& text) { e2e::write_file(path, text); }

bool exists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec);
}

nlohmann::ordered_json summary_json(const FakeRun& run) {
  using nlohmann::ordered_json;
  ordered_json j;
  j["schema"] = "seer.summary";
  j["schema_version"] = 1;
  j["cluster"] = {{"name", run.cluster},
                  {"source", run.cluster},
                  {"nodes", 1},
                  {"gpus_per_node", 8},
                  {"gpu", "H100-SXM-80GB"}};
  j["host_time"] = run.host_time;
  j["command"] = {"./train", "--steps", "10"};
  j["exit_code"] = run.exit_code;
  j["simulated_time_ns"] = run.simulated_ns;
  j["processes"] = ordered_json::array({{{"process", 1000000},
                                         {"rank", -1},
                                         {"exited_normally", true},
                                         {"end_time_ns", run.simulated_ns}}});
  ordered_json gpus = ordered_json::array();
  for (size_t i = 0; i < run.gpus.size(); ++i) {
    const FakeGpu& g = run.gpus[i];
    gpus.push_back({{"gpu", i},
                    {"node", 0},
                    {"busy_ns", g.kernel_ns + g.copy_ns},
                    {"kernels", {{"count", g.kernels}, {"time_ns", g.kernel_ns}}},
                    {"copies", {{"count", 4}, {"time_ns", g.copy_ns}, {"bytes", 1 << 20}}},
                    {"collectives", {{"count", 3}, {"time_ns", g.nccl_ns}}},
                    {"peak_memory_bytes", g.peak_bytes}});
  }
  j["gpus"] = gpus;
  j["kernels"] = ordered_json::array({{{"name", "gemm(float*)"},
                                       {"count", 16},
                                       {"total_ns", 50'000'000},
                                       {"avg_ns", 3'125'000},
                                       {"min_ns", 3'000'000},
                                       {"max_ns", 3'250'000},
                                       {"source", "generic"}}});
  const auto coll = [](const char* op, int64_t bytes, double algbw, double busbw) {
    return ordered_json{{"op", op},           {"bytes", bytes},     {"nranks", 2},
                        {"count", 3},         {"total_ns", 600000}, {"avg_ns", 200000},
                        {"algbw_gbs", algbw}, {"busbw_gbs", busbw}};
  };
  j["collectives"] = ordered_json::array({coll("AllReduce", 1 << 26, 150.5, 150.5),
                                          coll("AllGather", 1 << 24, 180.0, 90.0),
                                          coll("AllReduce", 1 << 28, 180.25, 180.25)});
  if (run.steps) {
    j["steps"] = {{"count", run.steps->count},
                  {"mean_ns", run.steps->mean_ns},
                  {"p50_ns", run.steps->p50_ns},
                  {"max_ns", run.steps->max_ns}};
  }
  j["time_sources"] = {{"generic_kernel_ns", 50'000'000}, {"all_ops_ns", 76'000'000}};
  j["problems"] = ordered_json::array();
  return j;
}

std::string write_summary(const std::string& path, const FakeRun& run) {
  write_file(path, summary_json(run).dump(2) + "\n");
  return path;
}

const JUnitCase* JUnit::find(const std::string& name) const {
  for (const JUnitCase& c : cases) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

JUnit read_junit(const std::string& path) {
  JUnit j;
  const Result r = run({"python3", "-c", kJUnitReader, path});
  if (r.exit_code != 0) {
    ADD_FAILURE() << path << " is not well-formed JUnit XML:\n"
                  << r.describe() << "\n--- the file ---\n"
                  << read_file(path);
    return j;
  }
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  j.ok = true;
  j.root_tag = doc["root"].get<std::string>();
  j.root_attrs = doc["root_attrs"];
  j.suite_attrs = doc["suite_attrs"];
  j.properties = doc["properties"];
  j.suites = doc["suites"].get<int>();
  for (const auto& c : doc["cases"]) {
    j.cases.push_back({c["name"].get<std::string>(), c["classname"].get<std::string>(),
                       c["status"].get<std::string>(), c["message"].get<std::string>()});
  }
  return j;
}

}  // namespace seer::check_test
