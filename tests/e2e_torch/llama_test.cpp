// examples/pytorch/train_llama.py --model tiny under torchrun on two simulated nodes: each kind
// of parallelism finishes its steps, and the step times the script measures with CUDA events
// agree with the steps Seer's report finds from the script's NVTX ranges.

#include <numeric>

#include "torch_util.h"

namespace seer::e2e::torch {
namespace {

constexpr int kSteps = 3;

struct Config {
  const char* name;
  int ranks;
  std::vector<std::string> flags;
};

// The test's name in gtest listings.
void PrintTo(const Config& c, std::ostream* os) { *os << c.name; }

class LlamaTest : public TorchTest, public ::testing::WithParamInterface<Config> {};

TEST_P(LlamaTest, StepsFinishAndMatchTheReport) {
  const Config& c = GetParam();
  TempDir out;
  std::vector<std::string> args{"--model", "tiny",    "--seq-len",
                                "512",     "--steps", std::to_string(kSteps)};
  args.insert(args.end(), c.flags.begin(), c.flags.end());
  const Outcome o = seer_torch(cluster_file("h100x4-2nodes.yaml"), out.path(),
                               torchrun(c.ranks, example("train_llama.py"), args));
  ASSERT_EQ(o.exit_code, 0) << o.describe();

  // Rank 0's lines: "rank 0 step N: loss ...  step 12.34 ms ...".
  const auto ms = numbers(o.out, R"(rank 0 step \d+: .* step ([0-9.]+) ms)");
  ASSERT_EQ(ms.size(), static_cast<size_t>(kSteps)) << o.describe();
  for (double m : ms) EXPECT_GT(m, 0.0);

  const nlohmann::json summary = read_json(out.file("summary.json"));
  const nlohmann::json& steps = summary["steps"];
  ASSERT_EQ(steps.value("source", ""), "nvtx") << steps.dump(2);
  EXPECT_EQ(steps.value("count", 0), kSteps);
  EXPECT_EQ(steps.value("ranks", 0), c.ranks);
  // The report's step is the slowest rank's NVTX range (host time included); the script's is
  // rank 0's GPU time between two events inside that range.
  const double printed = std::accumulate(ms.begin() + 1, ms.end(), 0.0) / (kSteps - 1);
  const double reported = steps.value("mean_ns", 0.0) / 1e6;
  std::printf("[torch] %s: printed mean step %.3f ms, report %.3f ms\n", c.name, printed, reported);
  EXPECT_GT(reported, 0.0);
  EXPECT_LE(printed, reported * 1.001);
  EXPECT_GT(printed, 0.8 * reported);
}

INSTANTIATE_TEST_SUITE_P(
    Parallelisms, LlamaTest,
    ::testing::Values(Config{"DDP", 8, {"--ddp"}}, Config{"FSDP2", 8, {"--fsdp"}},
                      Config{"TP", 4, {"--tp", "4"}},
                      Config{"PPxFSDP", 8, {"--pp", "2", "--fsdp", "--batch-size", "4"}},
                      Config{"FSDPxTP", 8, {"--fsdp", "--tp", "4", "--ac"}}),
    [](const ::testing::TestParamInfo<Config>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace seer::e2e::torch
