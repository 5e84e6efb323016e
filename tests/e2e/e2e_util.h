// Helpers for the end-to-end tests: run a command capturing its output and exit status, run a
// program under `seer run`, read the "RESULT name value" lines test programs print, and the
// documented model formulas (simcore/README.md) written out independently of Seer's code.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace seer::e2e {

using Env = std::vector<std::pair<std::string, std::string>>;

struct Outcome {
  int exit_code = -1;  // 128 + signal number when the process was killed by a signal
  bool timed_out = false;
  std::string out;
  std::string err;
  std::map<std::string, std::string> results;  // RESULT lines of `out`

  bool has(const std::string& name) const { return results.count(name) > 0; }
  // The value of RESULT `name`; fails the test (and returns 0) when it is missing.
  std::string text(const std::string& name) const;
  long long integer(const std::string& name) const;
  double number(const std::string& name) const;
  // For failure messages: the exit status and both streams.
  std::string describe() const;
};

// Runs argv (PATH lookup) with extra environment variables, stdout and stderr captured.
Outcome run_command(const std::vector<std::string>& argv, const Env& env = {}, int timeout_s = 120);

// A fresh directory under /tmp, removed at destruction (kept when SEER_E2E_KEEP is set).
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& text);
nlohmann::json read_json(const std::string& path);

// Paths from the build.
std::string seer_bin();
std::string seer_lib_dir();
std::string program(const std::string& name);  // a test program built from programs/NAME.cu
std::string source_dir();                      // tests/e2e in the source tree

#ifdef E2E_EXAMPLES_DIR
// A program of examples/ as the build made it.
inline std::string example(const std::string& name) {
  return std::string(E2E_EXAMPLES_DIR) + "/" + name;
}
#endif

#ifdef E2E_MPIRUN
// `mpirun --oversubscribe -np NP COMMAND...` (as root: --allow-run-as-root).
std::vector<std::string> mpirun(int np, std::vector<std::string> command);
#endif

// `seer ARGS...`.
Outcome seer(const std::vector<std::string>& args, const Env& env = {}, int timeout_s = 120);
// `seer run --host-time MODE --cluster CLUSTER --out OUT -- COMMAND...`.
Outcome seer_run(const std::string& cluster, const std::string& out,
                 const std::vector<std::string>& command, const Env& env = {},
                 const std::string& host_time = "modeled");

// Expects RESULT `name` (cudaEventElapsedTime, ms) to equal `expected_ns`: within 2 ns, the
// float's and the printout's rounding.
void expect_event_ms(const Outcome& o, const std::string& name, int64_t expected_ns);
// Expects RESULT `name` (ns from std::chrono / clock_gettime) to equal `expected_ns` exactly.
void expect_ns(const Outcome& o, const std::string& name, int64_t expected_ns);

// ---- The documented models (simcore/README.md), written out for the tests. ----
namespace model {

// Host costs (ns) added to the calling thread's clock by each intercepted call.
inline constexpr int64_t kLaunch = 2000;
inline constexpr int64_t kMemcpyAsync = 2000;  // also cudaMemsetAsync and cudaMemset
inline constexpr int64_t kMemcpySync = 3000;   // blocking cudaMemcpy (plus the wait)
inline constexpr int64_t kEventRecord = 500;
inline constexpr int64_t kStreamWait = 500;
inline constexpr int64_t kQuery = 300;
inline constexpr int64_t kMalloc = 10000;
inline constexpr int64_t kFree = 10000;
inline constexpr int64_t kOtherCall = 200;
inline constexpr int64_t kClockRead = 20;
inline constexpr int64_t kSyncReturn = 1000;  // GPU completion -> blocked host thread returns

struct Gpu {
  int64_t sm_count;
  int64_t max_threads_per_sm;
  int64_t max_blocks_per_sm;
  int64_t hbm_bytes_per_s;
};
inline constexpr Gpu kH100{132, 2048, 32, 3'350'000'000'000};
inline constexpr Gpu kA100{108, 2048, 32, 2'039'000'000'000};

// Generic kernel model: 2000 + 1500 * waves.
int64_t kernel_ns(const Gpu& gpu, int64_t gx, int64_t gy, int64_t gz, int64_t bx, int64_t by,
                  int64_t bz);
inline int64_t kernel_ns(const Gpu& gpu, int64_t blocks, int64_t threads) {
  return kernel_ns(gpu, blocks, 1, 1, threads, 1, 1);
}

// ceil(bytes * 1e9 / bw) with bw = bw_num / bw_den bytes per second, computed exactly.
int64_t transfer_ns(int64_t bytes, int64_t bw_num, int64_t bw_den = 1);

struct Links {
  int64_t host_bw;  // bytes/s, pinned
  int64_t host_lat_ns;
  int64_t pageable_num;  // pageable_factor = num / den
  int64_t pageable_den;
  int64_t scale_up_bw;  // bytes/s
  int64_t scale_up_lat_ns;
};
// The presets' node.host_link and node.scale_up.
inline constexpr Links kDgxH100{55'000'000'000, 2000, 1, 2, 450'000'000'000, 1000};
inline constexpr Links kTestFabric{50'000'000'000, 2000, 1, 2, 400'000'000'000, 1000};

int64_t h2d_pinned_ns(const Links& l, int64_t bytes);    // also D2H
int64_t h2d_pageable_ns(const Links& l, int64_t bytes);  // also D2H
int64_t d2d_ns(const Gpu& g, int64_t bytes);
int64_t memset_ns(const Gpu& g, int64_t bytes);
int64_t peer_same_node_ns(const Links& l, int64_t bytes);
int64_t peer_other_node_ns(const Links& l, int64_t bytes);
int64_t h2h_ns(int64_t bytes);

// The blocker kernel of the test programs: 132 * 32 * 1000 blocks of 32 threads.
inline int64_t blocker_ns() { return kernel_ns(kH100, 132 * 32 * 1000, 32); }

}  // namespace model
}  // namespace seer::e2e
