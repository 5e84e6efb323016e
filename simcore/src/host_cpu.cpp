// Host CPU catalog and the reference host's measured constants (HOST_CPU.md).

#include "seer/simcore/host_cpu.h"

#include <cmath>

namespace seer::sim {
namespace {

struct Microarchitecture {
  const char* name;
  double ipc_index;
};

// Per-clock single-thread speed, Zen 4 = 1.0, chained from the vendors' launch figures
// (HOST_CPU.md): Zen 3 = Zen 2 x 1.19, Zen 4 = Zen 3 x 1.13, Zen 5 = Zen 4 x 1.16 (AMD);
// Golden Cove = Sunny/Cypress Cove x 1.19 (Intel); Sunny Cove taken equal to Zen 3.
constexpr double kZen3 = 1.0 / 1.13;
constexpr Microarchitecture kMicroarchitectures[] = {
    {"zen2", kZen3 / 1.19},
    {"zen3", kZen3},
    {"zen4", 1.0},
    {"zen5", 1.16},
    {"sunny-cove", kZen3},
    {"golden-cove", kZen3 * 1.19},
    {"raptor-cove", kZen3 * 1.19},
};

HostCpuSpec cpu(const char* name, const char* marketing, const char* uarch, double turbo_ghz) {
  return HostCpuSpec{name, marketing, uarch, microarchitecture_ipc_index(uarch), turbo_ghz};
}

}  // namespace

double microarchitecture_ipc_index(const std::string& microarchitecture) {
  for (const Microarchitecture& m : kMicroarchitectures) {
    if (microarchitecture == m.name) return m.ipc_index;
  }
  return 0;
}

const std::vector<HostCpuSpec>& host_cpu_catalog() {
  // Maximum single-core turbo clocks from the vendors' product pages and the DGX datasheets.
  static const std::vector<HostCpuSpec> catalog = {
      cpu("Xeon-Platinum-8480C", "Intel Xeon Platinum 8480C", "golden-cove", 3.8),  // DGX H100
      cpu("Xeon-Platinum-8480+", "Intel Xeon Platinum 8480+", "golden-cove", 3.8),
      cpu("Xeon-Platinum-8468", "Intel Xeon Platinum 8468", "golden-cove", 3.8),
      cpu("Xeon-Platinum-8592+", "Intel Xeon Platinum 8592+", "raptor-cove", 3.9),
      cpu("Xeon-Platinum-8380", "Intel Xeon Platinum 8380", "sunny-cove", 3.4),
      cpu("EPYC-7742", "AMD EPYC 7742", "zen2", 3.4),  // DGX A100
      cpu("EPYC-7763", "AMD EPYC 7763", "zen3", 3.5),
      cpu("EPYC-9654", "AMD EPYC 9654", "zen4", 3.7),
      cpu("EPYC-9575F", "AMD EPYC 9575F", "zen5", 5.0),
  };
  return catalog;
}

std::optional<HostCpuSpec> find_host_cpu(const std::string& name) {
  for (const HostCpuSpec& c : host_cpu_catalog()) {
    if (c.name == name) return c;
  }
  return std::nullopt;
}

const ReferenceHost& reference_host() {
  // Measured on 2026-11-25 on the project's build VM (AMD Zen 5, family 26 model 2, KVM):
  // a dependent-add chain runs at 4.47 GHz, the benchmark at 100.3-103.3 M ops/s (three runs),
  // PyTorch eager 8.1 us per operation; HOST_CPU.md "Reference host" has the runs.
  static const ReferenceHost ref{microarchitecture_ipc_index("zen5") * 4.47, 102.0e6, 8100};
  return ref;
}

Time framework_op_ns(const HostCpuSpec& target) {
  const ReferenceHost& ref = reference_host();
  return static_cast<Time>(std::llround(static_cast<double>(ref.framework_op_ns) *
                                        ref.single_thread_index / target.single_thread_index()));
}

double target_benchmark_ops_per_s(const HostCpuSpec& target) {
  const ReferenceHost& ref = reference_host();
  return ref.benchmark_ops_per_s * target.single_thread_index() / ref.single_thread_index;
}

}  // namespace seer::sim
