// With --host-time modeled, the same PyTorch run twice gives byte-identical summary.json.

#include "torch_util.h"

namespace seer::e2e::torch {
namespace {

using DeterminismTest = TorchTest;

TEST_F(DeterminismTest, ModeledRerunsGiveIdenticalSummaries) {
  std::string summaries[2];
  for (std::string& summary : summaries) {
    TempDir out;
    const Outcome o =
        seer_torch("dgx-h100", out.path(),
                   torchrun(2, example("train_llama.py"),
                            {"--model", "tiny", "--seq-len", "512", "--steps", "3", "--ddp"}));
    ASSERT_EQ(o.exit_code, 0) << o.describe();
    summary = read_file(out.file("summary.json"));
  }
  ASSERT_FALSE(summaries[0].empty());
  EXPECT_TRUE(summaries[0] == summaries[1]) << "the two runs' summary.json differ";
}

}  // namespace
}  // namespace seer::e2e::torch
