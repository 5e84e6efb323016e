// Helpers for the `seer check` tests: run the built seer binary, write hand-made summaries in the
// schema seer run writes (runtime/src/report.cpp: "seer.summary", schema_version 1), and read a
// JUnit file back through Python's XML parser (which rejects anything that is not well formed).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "e2e_util.h"

namespace seer::check_test {

struct Result {
  int exit_code = -1;  // 128 + signal when killed
  bool timed_out = false;
  std::string out;
  std::string err;
  std::string describe() const;  // for failure messages
};

// Runs argv (PATH lookup) with stdout and stderr captured and stdin from /dev/null.
Result run(const std::vector<std::string>& argv, int timeout_s = 120);
// The built `seer` with these arguments.
Result seer(const std::vector<std::string>& args);

// A fresh directory under /tmp, removed at destruction (kept when SEER_E2E_KEEP is set).
using TempDir = e2e::TempDir;

std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& text);
bool exists(const std::string& path);

// A summary like seer run writes. The defaults describe two GPUs:
//   simulated_time_ms 100; kernel_time_ms 30 + 20 = 50; copy_time_ms 5 + 1 = 6;
//   nccl_time_ms 8 + 12 = 20; kernel_count 10 + 6 = 16; peak memory max(3, 5) = 5 GiB;
//   AllReduce busbw 150.5 and 180.25 GB/s, AllGather 90 GB/s; exit_code 0; no steps.
struct FakeGpu {
  int64_t kernels = 0;
  int64_t kernel_ns = 0;
  int64_t copy_ns = 0;
  int64_t nccl_ns = 0;
  int64_t peak_bytes = 0;
};
struct Steps {
  int64_t count = 10;
  int64_t mean_ns = 9'500'000;
  int64_t p50_ns = 9'000'000;
  int64_t max_ns = 12'000'000;
};
struct FakeRun {
  int64_t simulated_ns = 100'000'000;
  std::vector<FakeGpu> gpus = {{10, 30'000'000, 5'000'000, 8'000'000, 3LL << 30},
                               {6, 20'000'000, 1'000'000, 12'000'000, 5LL << 30}};
  std::optional<Steps> steps;
  int exit_code = 0;
  std::string cluster = "dgx-h100";
  std::string host_time = "modeled";
};
nlohmann::ordered_json summary_json(const FakeRun& run = {});
// Writes summary_json(run) to `path` and returns the path.
std::string write_summary(const std::string& path, const FakeRun& run = {});

// A JUnit file as parsed by python3's xml.etree: the root's and the (single) suite's attributes,
// properties and test cases. Fails the test when the file is not well-formed XML.
struct JUnitCase {
  std::string name;
  std::string classname;
  std::string status;  // "pass", "failure", "error"
  std::string message;
};
struct JUnit {
  bool ok = false;
  std::string root_tag;
  nlohmann::json root_attrs;
  nlohmann::json suite_attrs;
  nlohmann::json properties;
  std::vector<JUnitCase> cases;
  int suites = 0;

  // The case called `name`, or nullptr.
  const JUnitCase* find(const std::string& name) const;
};
JUnit read_junit(const std::string& path);

}  // namespace seer::check_test
