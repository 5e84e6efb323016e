// Host time against the cluster's host CPU (simcore/src/HOST_CPU.md): a GPU-bound PyTorch job
// gives the same step time whether this machine's CPU time is measured (scaled by the calibrated
// speed ratio) or the framework's per-operation cost is modeled; a launch-bound one is predicted
// host-bound either way, and in modeled mode each launched operation costs the catalog's figure.

#include "seer/simcore/host_cpu.h"
#include "torch_util.h"

namespace seer::e2e::torch {
namespace {

using HostTimeTest = TorchTest;

struct TrainingRun {
  nlohmann::json summary;
  nlohmann::json trace;
  std::string out;
};

TrainingRun train(const std::string& host_time, int ranks, const std::vector<std::string>& args) {
  TempDir out;
  const Outcome o = seer_torch("dgx-h100", out.path(),
                               torchrun(ranks, example("train_llama.py"), args), host_time);
  EXPECT_EQ(o.exit_code, 0) << o.describe();
  // Every rank exits normally (a measured run reads the thread CPU clock in PyTorch's exit
  // handlers too).
  const nlohmann::json summary = read_json(out.file("summary.json"));
  for (const auto& p : summary["processes"]) EXPECT_TRUE(p["exited_normally"].get<bool>()) << p;
  EXPECT_EQ(summary["steps"].value("source", ""), "nvtx") << summary["steps"];
  return TrainingRun{summary, read_json(out.file("trace.json")), o.out};
}

// Operations rank 0 launched (kernels, library calls, copies, memsets, collectives) during its
// NVTX range `step`.
int launched_in_step(const nlohmann::json& trace, const std::string& step) {
  double start = -1, end = -1;
  for (const auto& e : trace["traceEvents"]) {
    if (e.value("ph", "") == "X" && e.value("cat", "") == "nvtx" && e.value("pid", -1) == 0 &&
        e.value("name", "") == step) {
      start = e["ts"].get<double>();
      end = start + e["dur"].get<double>();
    }
  }
  EXPECT_GE(start, 0) << "no NVTX range " << step;
  int n = 0;
  for (const auto& e : trace["traceEvents"]) {
    const std::string cat = e.value("cat", "");
    if (e.value("ph", "") != "X" || e.value("pid", -1) != 0) continue;
    if (cat != "kernel" && cat != "memory" && cat != "nccl") continue;
    const double ts = e["ts"].get<double>();
    if (ts >= start && ts < end) ++n;
  }
  return n;
}

TEST_F(HostTimeTest, AGpuBoundJobGivesTheSameStepTimeMeasuredAndModeled) {
  // Issue 14's case: 8 layers, d 2048, sequence 2048, batch 2, DDP on 8 H100.
  const std::vector<std::string> args{"--model", "llama3-1b",    "--layers", "8",     "--seq-len",
                                      "2048",    "--batch-size", "2",        "--ddp", "--steps",
                                      "4"};
  const TrainingRun measured = train("measured", 8, args);
  const TrainingRun modeled = train("modeled", 8, args);
  const double m = measured.summary["steps"].value("mean_ns", 0.0);
  const double d = modeled.summary["steps"].value("mean_ns", 0.0);
  std::printf("[torch] GPU-bound step: measured %.3f ms (cpu_scale %.3f), modeled %.3f ms\n",
              m / 1e6, measured.summary["host"].value("cpu_scale", 0.0), d / 1e6);
  ASSERT_GT(d, 0);
  EXPECT_NEAR(m / d, 1.0, 0.10);
  EXPECT_EQ(measured.summary["steps"].value("bound", ""), "gpu");
  EXPECT_EQ(modeled.summary["steps"].value("bound", ""), "gpu");
  EXPECT_EQ(measured.summary["host"].value("cpu", ""), "Xeon-Platinum-8480C");
  EXPECT_GT(measured.summary["host"].value("cpu_scale", 0.0), 0.0);
  EXPECT_FALSE(modeled.summary["host"].contains("cpu_scale"));
  EXPECT_EQ(measured.summary["steps"].value("count", 0), 4);
  EXPECT_EQ(modeled.summary["steps"].value("count", 0), 4);
}

TEST_F(HostTimeTest, ALaunchBoundJobIsHostBoundMeasuredAndModeled) {
  const std::vector<std::string> args{"--model", "tiny",  "--seq-len", "128", "--batch-size",
                                      "1",       "--ddp", "--steps",   "4"};
  const TrainingRun measured = train("measured", 2, args);
  const TrainingRun modeled = train("modeled", 2, args);
  EXPECT_EQ(measured.summary["steps"].value("bound", ""), "host") << measured.out;
  EXPECT_EQ(modeled.summary["steps"].value("bound", ""), "host") << modeled.out;

  // Modeled: every launched operation costs the Xeon 8480C's framework cost plus its launch API
  // cost (2 us); the rest of the step (events, allocator, clock reads, GPU tail) adds a little.
  const int64_t framework = sim::framework_op_ns(*sim::find_host_cpu("Xeon-Platinum-8480C"));
  EXPECT_EQ(modeled.summary["host"].value("framework_op_ns", int64_t{0}), framework);
  const int ops = launched_in_step(modeled.trace, "step 2");
  const double floor = static_cast<double>(ops) * static_cast<double>(framework + 2000);
  const double step = modeled.summary["steps"]["per_step"][2].value("duration_ns", 0.0);
  std::printf(
      "[torch] launch-bound step 2: %d operations, modeled %.3f ms (floor %.3f ms), "
      "measured mean %.3f ms\n",
      ops, step / 1e6, floor / 1e6, measured.summary["steps"].value("mean_ns", 0.0) / 1e6);
  EXPECT_GT(ops, 300);
  EXPECT_GE(step, floor);
  EXPECT_LE(step, 1.3 * floor);
}

}  // namespace
}  // namespace seer::e2e::torch
