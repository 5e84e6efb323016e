// examples/pytorch/train_llama.py --compile on the 8 GPUs of a DGX H100 under `seer run`: each
// transformer block compiled by Inductor (into Triton kernels, loaded and launched through
// Seer's driver) and sharded with FSDP2. The steps finish, the report names the Triton kernels,
// and the first step carries the compilation's autotuning launches.

#include <cmath>

#include "compile_util.h"

namespace seer::e2e::torch {
namespace {

constexpr int kRanks = 8;
constexpr int kSteps = 3;

using CompiledTraining = TorchTest;

TEST_F(CompiledTraining, FsdpLlamaWithCompiledBlocksTrainsOnEightRanks) {
  TempDir dir;
  const Timed run = seer_compiled("train_llama.py --compile --fsdp, 8 ranks, empty caches",
                                  "dgx-h100", dir.file("out"),
                                  torchrun(kRanks, example("train_llama.py"),
                                           {"--model", "tiny", "--seq-len", "128", "--steps",
                                            std::to_string(kSteps), "--fsdp", "--compile"}),
                                  fresh_caches(dir));
  const Outcome& o = run.outcome;
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  EXPECT_NE(o.out.find("FSDP2 compiled seq 128"), std::string::npos) << o.out;

  // Rank 0's lines: "rank 0 step N: loss L  step M ms ...". Losses are finite numbers (their
  // values are not the model's: the simulated GPU computes no kernel's data), step times positive.
  const auto losses = numbers(o.out, R"(rank 0 step \d+: loss (-?[0-9]+\.[0-9]+) )");
  const auto ms = numbers(o.out, R"(rank 0 step \d+: .* step ([0-9.]+) ms)");
  ASSERT_EQ(losses.size(), static_cast<size_t>(kSteps)) << o.describe();
  ASSERT_EQ(ms.size(), static_cast<size_t>(kSteps)) << o.describe();
  for (double loss : losses) EXPECT_TRUE(std::isfinite(loss)) << loss;
  for (double m : ms) EXPECT_GT(m, 0.0);
  // The first step compiles: Inductor benchmarks kernel configurations on the (simulated) GPU.
  EXPECT_GT(ms[0], 2 * ms[kSteps - 1]) << o.out;
  std::printf("[compile] steps (simulated, modeled host time): first %.2f ms, last %.2f ms\n",
              ms[0], ms[kSteps - 1]);

  const nlohmann::json summary = read_json(dir.file("out") + "/summary.json");
  EXPECT_EQ(summary["steps"].value("count", 0), kSteps);
  EXPECT_EQ(summary["steps"].value("ranks", 0), kRanks);
  const auto triton = inductor_kernels(summary);
  ASSERT_FALSE(triton.empty()) << summary["kernels"].dump(1);
  // Every rank runs every compiled kernel in each of the steps at least once.
  int64_t most = 0;
  for (const auto& [name, count] : triton) most = std::max(most, count);
  EXPECT_GE(most, kRanks * kSteps);
  // The printed report (stderr) names them too.
  EXPECT_NE(o.err.find("triton_"), std::string::npos) << o.err;
  // All eight ranks' compiled blocks launched kernels through FSDP's collectives.
  EXPECT_FALSE(summary["collectives"].empty());
}

}  // namespace
}  // namespace seer::e2e::torch
