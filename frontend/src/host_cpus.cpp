#include "host_cpus.h"

#include <cstdio>
#include <string>

#include "seer/runtime/host_calibration.h"
#include "seer/simcore/host_cpu.h"

namespace seer::cli {

int print_host_cpus(bool refresh) {
  const rt::HostSpeed here = rt::host_speed(refresh);
  const sim::ReferenceHost& ref = sim::reference_host();
  const std::string origin = here.from_cache ? "cached in " + here.cache_path
                             : here.cache_path.empty()
                                 ? "calibrated now, not cached"
                                 : "calibrated now, cached in " + here.cache_path;
  std::printf("this machine  %s: %.1f M benchmark ops/s (%s)\n", here.cpu_model.c_str(),
              here.benchmark_ops_per_s / 1e6, origin.c_str());
  std::printf(
      "reference    %.1f M ops/s at single-thread index %.2f; PyTorch framework cost %.1f us "
      "per operation\n\n",
      ref.benchmark_ops_per_s / 1e6, ref.single_thread_index,
      static_cast<double>(ref.framework_op_ns) / 1e3);
  std::printf("%-22s %-28s %-12s %6s %6s %10s %10s\n", "host_cpu", "CPU", "core", "GHz", "index",
              "cpu_scale", "framework");
  for (const sim::HostCpuSpec& c : sim::host_cpu_catalog()) {
    const double scale = here.benchmark_ops_per_s / sim::target_benchmark_ops_per_s(c);
    std::printf("%-22s %-28s %-12s %6.2f %6.2f %10.2f %7.1f us\n", c.name.c_str(),
                c.marketing_name.c_str(), c.microarchitecture.c_str(), c.max_turbo_ghz,
                c.single_thread_index(), scale, static_cast<double>(sim::framework_op_ns(c)) / 1e3);
  }
  std::printf(
      "\ncpu_scale: measured host time = this machine's CPU time x cpu_scale; framework: modeled "
      "host time per PyTorch operation (simcore/src/HOST_CPU.md)\n");
  return here.benchmark_ops_per_s > 0 ? 0 : 1;
}

}  // namespace seer::cli
