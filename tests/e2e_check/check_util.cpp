#include "check_util.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

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

std::string Result::describe() const {
  std::ostringstream s;
  s << "exit status " << exit_code << (timed_out ? " (timed out)" : "") << "\n--- stdout ---\n"
    << out << "--- stderr ---\n"
    << err << "--------------";
  return s.str();
}

Result run(const std::vector<std::string>& argv, int timeout_s) {
  TempDir capture("seer-check-io");
  const std::string out_path = capture.file("stdout");
  const std::string err_path = capture.file("stderr");
  Result r;
  const pid_t pid = ::fork();
  if (pid < 0) {
    ADD_FAILURE() << "fork: " << std::strerror(errno);
    return r;
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    const int out_fd = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err_fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int null_fd = ::open("/dev/null", O_RDONLY);
    if (out_fd < 0 || err_fd < 0 || null_fd < 0) ::_exit(126);
    ::dup2(null_fd, 0);
    ::dup2(out_fd, 1);
    ::dup2(err_fd, 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    std::fprintf(stderr, "cannot run %s: %s\n", args[0], std::strerror(errno));
    ::_exit(125);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  int status = 0;
  while (true) {
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) {
      ADD_FAILURE() << "waitpid: " << std::strerror(errno);
      return r;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      r.timed_out = true;
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.exit_code = 128 + WTERMSIG(status);
  r.out = read_file(out_path);
  r.err = read_file(err_path);
  return r;
}

Result seer(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {SEER_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv);
}

TempDir::TempDir(const std::string& tag) {
  std::string pattern = "/tmp/" + tag + "-XXXXXX";
  if (!::mkdtemp(pattern.data())) {
    throw std::runtime_error(std::string("mkdtemp: ") + std::strerror(errno));
  }
  path_ = pattern;
}

TempDir::~TempDir() {
  if (std::getenv("SEER_E2E_KEEP")) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
}

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
