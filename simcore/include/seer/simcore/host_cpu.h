#pragma once

#include <optional>
#include <string>
#include <vector>

#include "seer/simcore/time.h"

namespace seer::sim {

// A target cluster's host CPU: what runs the training program's Python, PyTorch's dispatcher
// and the CUDA launch path. Single-thread speed is `ipc_index * max_turbo_ghz`, with IPC indexed
// to AMD Zen 4 = 1.0 (simcore/src/HOST_CPU.md derives each index from the vendors' published
// generation-over-generation figures).
struct HostCpuSpec {
  std::string name;            // catalog key, e.g. "Xeon-Platinum-8480C"
  std::string marketing_name;  // "Intel Xeon Platinum 8480C"
  std::string microarchitecture;
  double ipc_index = 1.0;    // per clock, Zen 4 = 1.0
  double max_turbo_ghz = 0;  // single-core maximum turbo/boost clock, datasheet
  double single_thread_index() const { return ipc_index * max_turbo_ghz; }
};

const std::vector<HostCpuSpec>& host_cpu_catalog();
std::optional<HostCpuSpec> find_host_cpu(const std::string& name);
// The IPC index of a microarchitecture named in the catalog ("zen5", "golden-cove", ...); 0 when
// unknown.
double microarchitecture_ipc_index(const std::string& microarchitecture);

// The reference host: the machine on which Seer's host-time constants were measured
// (HOST_CPU.md "Reference host"): AMD Zen 5 at an effective 4.47 GHz.
struct ReferenceHost {
  double single_thread_index = 0;
  // The interpreter-and-dispatch benchmark's rate there (runtime/src/host_calibration.cpp).
  double benchmark_ops_per_s = 0;
  // CPU time PyTorch eager spends per launched operation (Python, dispatcher, autograd) beyond
  // the CUDA call itself: measured on a launch-bound training step.
  Time framework_op_ns = 0;
};
const ReferenceHost& reference_host();

// On a target host CPU: the framework cost per operation (scaled from the reference host by
// single-thread speed) and the benchmark rate the target would reach.
Time framework_op_ns(const HostCpuSpec& target);
double target_benchmark_ops_per_s(const HostCpuSpec& target);

}  // namespace seer::sim
