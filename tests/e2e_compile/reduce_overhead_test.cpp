// examples/pytorch/infer_compiled.py: an inference loop compiled with
// torch.compile(mode="reduce-overhead"). Inductor's cudagraph trees run the compiled kernels
// once, record them into a CUDA graph, then replay it: under `seer run` the later iterations are
// graph launches (one host launch for the forward's kernels) and, with modeled host time, take
// the same time each.

#include <map>

#include "compile_util.h"

namespace seer::e2e::torch {
namespace {

constexpr int kIters = 8;
constexpr int kWarmup = 3;  // infer_compiled.py's default: compile, record, first replay

struct Iteration {
  double ms = 0;
  double enqueue_ms = 0;
};

// "iter N: 0.173 ms  (enqueue 0.010 ms, host 0.176 ms)"
std::vector<Iteration> iterations(const std::string& out) {
  const auto ms = numbers(out, R"(^iter \d+: ([0-9.]+) ms)");
  const auto enqueue = numbers(out, R"(^iter \d+: .*\(enqueue ([0-9.]+) ms)");
  std::vector<Iteration> its;
  for (size_t i = 0; i < ms.size() && i < enqueue.size(); ++i) its.push_back({ms[i], enqueue[i]});
  return its;
}

std::vector<std::string> infer(const std::string& mode) {
  return python_command(
      example("infer_compiled.py"),
      {"--model", "transformer", "--layers", "2", "--dim", "256", "--seq-len", "64", "--iters",
       std::to_string(kIters), "--warmup", std::to_string(kWarmup), "--mode", mode});
}

using ReduceOverhead = TorchTest;

TEST_F(ReduceOverhead, LaterIterationsAreEqualGraphReplays) {
  TempDir dir;
  const Env caches = fresh_caches(dir);
  const Timed graphs = seer_compiled("infer_compiled.py reduce-overhead, empty caches", "dgx-h100",
                                     dir.file("graphs"), infer("reduce-overhead"), caches);
  const Outcome& o = graphs.outcome;
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  const auto its = iterations(o.out);
  ASSERT_EQ(its.size(), static_cast<size_t>(kIters)) << o.out;

  // The first iteration compiles (Inductor benchmarks its kernels' configurations on the GPU)
  // and launches kernel by kernel; every later one is faster.
  for (int i = 1; i < kIters; ++i) EXPECT_LT(its[i].ms, its[0].ms) << "iteration " << i;
  // After the warm-up, every iteration replays the same graph: the same time, to the printout's
  // precision (modeled host time: no run-to-run noise).
  for (int i = kWarmup + 1; i < kIters; ++i) {
    EXPECT_EQ(its[i].ms, its[kWarmup].ms) << "iteration " << i << "\n" << o.out;
    EXPECT_EQ(its[i].enqueue_ms, its[kWarmup].enqueue_ms) << "iteration " << i;
  }

  // The trace shows the replays: a graph launch submits all its kernels at one host time, so
  // each replayed iteration has one submit time shared by many kernels.
  const nlohmann::json trace = read_json(dir.file("graphs") + "/trace.json");
  const nlohmann::json& events = trace.is_object() ? trace["traceEvents"] : trace;
  std::map<double, int> kernels_by_submit;
  for (const auto& e : events) {
    if (e.value("cat", "") == "kernel") ++kernels_by_submit[e["args"].value("submit_us", -1.0)];
  }
  int replays = 0, largest = 0;
  for (const auto& [submit, n] : kernels_by_submit) largest = std::max(largest, n);
  for (const auto& [submit, n] : kernels_by_submit) replays += n == largest ? 1 : 0;
  EXPECT_GE(largest, 10) << "kernels per replayed forward";
  EXPECT_GE(replays, kIters - kWarmup) << "graph replays";

  // The same loop compiled without CUDA graphs (the caches are warm now) launches every kernel
  // from the host: the replays enqueue in a fraction of its host time.
  const Timed plain = seer_compiled("infer_compiled.py default mode, warm caches", "dgx-h100", "",
                                    infer("default"), caches);
  ASSERT_EQ(plain.outcome.exit_code, 0) << plain.outcome.describe();
  const auto launched = iterations(plain.outcome.out);
  ASSERT_EQ(launched.size(), static_cast<size_t>(kIters)) << plain.outcome.out;
  std::printf(
      "[compile] steady iteration: graph replay %.3f ms (enqueue %.3f ms), kernel "
      "launches %.3f ms (enqueue %.3f ms); first iteration %.3f ms\n",
      its.back().ms, its.back().enqueue_ms, launched.back().ms, launched.back().enqueue_ms,
      its[0].ms);
  EXPECT_LT(4 * its.back().enqueue_ms, launched.back().enqueue_ms);
  EXPECT_LE(its.back().ms, launched.back().ms);
}

}  // namespace
}  // namespace seer::e2e::torch
