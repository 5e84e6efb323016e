#pragma once

#include <optional>
#include <string>

#include "seer/simcore/host_costs.h"
#include "seer/simcore/host_cpu.h"

namespace seer::rt {

// This machine's speed at interpreter-and-dispatch work (simcore/src/HOST_CPU.md): the rate of a
// fixed bytecode-interpreter workload, best of several short runs of thread CPU time.
struct HostSpeed {
  double benchmark_ops_per_s = 0;
  std::string cpu_model;   // /proc/cpuinfo's model name
  std::string cache_path;  // where the figure was read or written ("" when not cached)
  bool from_cache = false;
};

// One run of the benchmark: operations per second of thread CPU time.
double run_host_benchmark();

// The cached figure for this machine, else a fresh calibration (~0.2 s) written to the cache:
// $SEER_CACHE_DIR, else $XDG_CACHE_HOME/seer, else ~/.cache/seer, file host_calibration.json,
// keyed by CPU model and benchmark version. `refresh` ignores the cache.
HostSpeed host_speed(bool refresh = false);

// How a session charges host time for the cluster's host CPU (none named: this machine stands in,
// scale 1, and the reference host's framework cost).
struct HostCpuPlan {
  std::optional<sim::HostCpuSpec> target;
  double cpu_scale = 1.0;         // measured mode: this machine's CPU time x this
  sim::Time framework_op_ns = 0;  // modeled mode: per framework operation
  std::optional<HostSpeed> here;  // measured mode with a target: the calibration used
};
// `measured`: whether host time is measured (only then is this machine calibrated).
HostCpuPlan plan_host_cpu(const std::string& host_cpu, bool measured);
void apply(const HostCpuPlan& plan, sim::HostCosts& costs);

}  // namespace seer::rt
