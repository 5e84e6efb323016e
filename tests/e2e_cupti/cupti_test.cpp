// torch.profiler(activities=[CPU, CUDA]) under `seer run` through Seer's libcupti.so.13:
// key_averages() lists the GEMM with the simulated time Seer's own trace gives it, and the
// exported Chrome trace has the kernels on a GPU track at Seer's simulated durations.

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "torch_util.h"

namespace seer::e2e::torch {
namespace {

using CuptiTest = TorchTest;

nlohmann::json load(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

const nlohmann::json& events(const nlohmann::json& trace) {
  return trace.is_array() ? trace : trace.at("traceEvents");
}

// Durations (us) of the kernel events named `name` (every kernel when empty), in trace order.
std::vector<double> kernel_durations(const nlohmann::json& trace, const std::string& name,
                                     std::vector<int>* pids = nullptr) {
  std::vector<double> out;
  for (const auto& e : events(trace)) {
    if (e.value("cat", "") != "kernel" || e.value("ph", "") != "X") continue;
    if (!name.empty() && e.value("name", "") != name) continue;
    out.push_back(e.at("dur").get<double>());
    if (pids) pids->push_back(e.at("pid").get<int>());
  }
  return out;
}

TEST_F(CuptiTest, ProfilerShowsSimulatedKernelTimes) {
  const std::string dir = ::testing::TempDir() + "seer_cupti_e2e";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string chrome = dir + "/profiler_trace.json";
  const Outcome o =
      seer_torch("dgx-h100", dir + "/out", python_command(program("profile_matmul.py"), {chrome}));
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  ASSERT_EQ(o.integer("exported"), 1) << o.describe();

  // Seer's own trace: the simulated GEMMs (all of them run inside the profiled region).
  const nlohmann::json seer_trace = load(dir + "/out/trace.json");
  const std::string gemm = o.text("gemm_name");
  const std::vector<double> simulated = kernel_durations(seer_trace, gemm);
  ASSERT_EQ(simulated.size(), 3u) << gemm;
  double simulated_total = 0;
  for (double d : simulated) simulated_total += d;
  EXPECT_EQ(o.integer("gemm_count"), 3);
  EXPECT_NEAR(o.number("gemm_device_us"), simulated_total, 0.01);
  // Correlation: the GEMMs' time is attributed to the aten::mm that launched them.
  EXPECT_NEAR(o.number("mm_device_us"), simulated_total, 0.01);

  // The exported trace: kernels on a GPU process track, at the simulated durations.
  const nlohmann::json exported = load(chrome);
  std::vector<int> pids;
  const std::vector<double> profiled = kernel_durations(exported, gemm, &pids);
  ASSERT_EQ(profiled.size(), simulated.size());
  for (size_t i = 0; i < profiled.size(); ++i) EXPECT_NEAR(profiled[i], simulated[i], 0.002);
  std::map<int, std::string> labels;
  for (const auto& e : events(exported)) {
    if (e.value("ph", "") == "M" && e.value("name", "") == "process_labels") {
      labels[e.at("pid").get<int>()] = e.at("args").value("labels", "");
    }
  }
  for (int pid : pids) EXPECT_EQ(labels[pid].rfind("GPU", 0), 0u) << pid;
  // The elementwise kernel is there too, under its (demangled) kernel name.
  const std::vector<double> all = kernel_durations(exported, "");
  EXPECT_GE(all.size(), profiled.size() + 1);
  // The device-to-host copy of the 1024x1024 float result, as a memcpy record.
  int copies = 0;
  for (const auto& e : events(exported)) {
    if (e.value("cat", "") != "gpu_memcpy") continue;
    ++copies;
    EXPECT_EQ(e.at("args").value("bytes", 0LL), 1024LL * 1024 * 4);
    EXPECT_GT(e.at("dur").get<double>(), 0.0);
  }
  EXPECT_EQ(copies, 1);
}

}  // namespace
}  // namespace seer::e2e::torch
