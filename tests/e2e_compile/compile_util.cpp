#include "compile_util.h"

#include <chrono>
#include <cstdio>

namespace seer::e2e::torch {

Env fresh_caches(const TempDir& dir) {
  return {{"TORCHINDUCTOR_CACHE_DIR", dir.file("inductor-cache")},
          {"TRITON_CACHE_DIR", dir.file("triton-cache")}};
}

Timed seer_compiled(const std::string& label, const std::string& cluster, const std::string& out,
                    const std::vector<std::string>& command, const Env& env,
                    const std::string& host_time) {
  const auto t0 = std::chrono::steady_clock::now();
  Timed t{run_command(seer_run_argv(cluster, out, command, host_time), env, 540), 0};
  t.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("[compile] %s: wall %.1f s\n", label.c_str(), t.wall_s);
  return t;
}

std::vector<std::pair<std::string, int64_t>> inductor_kernels(const nlohmann::json& summary) {
  std::vector<std::pair<std::string, int64_t>> found;
  for (const auto& k : summary["kernels"]) {
    const std::string name = k.value("name", "");
    for (const char* prefix : {"triton_poi_", "triton_red_", "triton_per_"}) {
      if (name.rfind(prefix, 0) == 0) found.emplace_back(name, k.value("count", int64_t{0}));
    }
  }
  return found;
}

int64_t kernel_count(const nlohmann::json& summary, const std::string& name) {
  for (const auto& k : summary["kernels"]) {
    if (k.value("name", "") == name) return k.value("count", int64_t{0});
  }
  return 0;
}

}  // namespace seer::e2e::torch
