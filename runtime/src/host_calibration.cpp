// This machine against the cluster's host CPU (simcore/src/HOST_CPU.md): the benchmark figure,
// its cache, and the host-time constants a session uses.

#include "seer/runtime/host_calibration.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace seer::rt {
namespace {

// Bumped whenever the benchmark's work changes: older cached figures are then ignored.
constexpr int kBenchmarkVersion = 1;

#if defined(__SANITIZE_ADDRESS__)
constexpr const char* kFlavour = "asan";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr const char* kFlavour = "asan";
#else
constexpr const char* kFlavour = "plain";
#endif
#else
constexpr const char* kFlavour = "plain";
#endif

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "unknown";
}

std::filesystem::path cache_dir() {
  if (const char* d = std::getenv("SEER_CACHE_DIR"); d && *d) return d;
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) {
    return std::filesystem::path(d) / "seer";
  }
  if (const char* h = std::getenv("HOME"); h && *h) {
    return std::filesystem::path(h) / ".cache" / "seer";
  }
  return {};
}

std::optional<double> read_cached(const std::filesystem::path& file, const std::string& model) {
  std::ifstream in(file);
  if (!in) return std::nullopt;
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || j.value("version", 0) != kBenchmarkVersion ||
      j.value("cpu_model", "") != model || j.value("flavour", "") != kFlavour) {
    return std::nullopt;
  }
  const double rate = j.value("benchmark_ops_per_s", 0.0);
  if (!(rate > 0)) return std::nullopt;
  return rate;
}

// Written to a temporary file and renamed, so that concurrent sessions never read half a file.
// A cache that cannot be written is not an error: the next session calibrates again.
bool write_cache(const std::filesystem::path& file, const std::string& model, double rate) {
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  const std::filesystem::path tmp =
      file.string() + ".tmp." + std::to_string(static_cast<long>(::getpid()));
  {
    std::ofstream out(tmp);
    if (!out) return false;
    out << nlohmann::json{{"version", kBenchmarkVersion},
                          {"cpu_model", model},
                          {"flavour", kFlavour},
                          {"benchmark_ops_per_s", rate}}
               .dump(2)
        << "\n";
    if (!out) return false;
  }
  std::filesystem::rename(tmp, file, ec);
  if (ec) std::filesystem::remove(tmp, ec);
  return !ec;
}

}  // namespace

HostSpeed host_speed(bool refresh) {
  HostSpeed s;
  s.cpu_model = cpu_model_name();
  const std::filesystem::path dir = cache_dir();
  const std::filesystem::path file = dir.empty() ? dir : dir / "host_calibration.json";
  if (!file.empty() && !refresh) {
    if (const auto rate = read_cached(file, s.cpu_model)) {
      s.benchmark_ops_per_s = *rate;
      s.cache_path = file.string();
      s.from_cache = true;
      return s;
    }
  }
  s.benchmark_ops_per_s = run_host_benchmark();
  if (!file.empty() && write_cache(file, s.cpu_model, s.benchmark_ops_per_s)) {
    s.cache_path = file.string();
  }
  return s;
}

HostCpuPlan plan_host_cpu(const std::string& host_cpu, bool measured) {
  HostCpuPlan p;
  p.framework_op_ns = sim::reference_host().framework_op_ns;
  if (host_cpu.empty()) return p;
  p.target = sim::find_host_cpu(host_cpu);
  if (!p.target) return p;  // the cluster parser has already refused unknown names
  p.framework_op_ns = sim::framework_op_ns(*p.target);
  if (measured) {
    p.here = host_speed();
    const double target_rate = sim::target_benchmark_ops_per_s(*p.target);
    if (p.here->benchmark_ops_per_s > 0 && target_rate > 0) {
      p.cpu_scale = p.here->benchmark_ops_per_s / target_rate;
    }
  }
  return p;
}

void apply(const HostCpuPlan& plan, sim::HostCosts& costs) {
  costs.cpu_scale = plan.cpu_scale;
  costs.framework_op = plan.framework_op_ns;
}

}  // namespace seer::rt
