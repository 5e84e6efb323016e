// torch.distributed paths that read collective results back on the host (object collectives,
// DDP's start-up checks), and a convolutional network under DDP.

#include <unistd.h>

#include "torch_util.h"

namespace seer::e2e::torch {
namespace {

using DistributedTest = TorchTest;

TEST_F(DistributedTest, ObjectCollectivesAndDdpStartupSeeRealBytes) {
  const Outcome o = seer_torch("dgx-h100", "", torchrun(4, program("objects.py")));
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  for (int r = 0; r < 4; ++r) {
    const std::string rank = std::to_string(r);
    EXPECT_EQ(o.integer("gather_ok_" + rank), 1) << "rank " << r;
    EXPECT_EQ(o.integer("broadcast_ok_" + rank), 1) << "rank " << r;
    EXPECT_EQ(o.number("allreduce_" + rank), 1 + 2 + 3 + 4) << "rank " << r;
    EXPECT_EQ(o.integer("ddp_steps_" + rank), 2) << "rank " << r;
  }
}

TEST_F(DistributedTest, ResNet50DdpStepsFinish) {
  if (::access((seer_lib_dir() + "/libcudnn.so.9").c_str(), R_OK) != 0) {
    GTEST_SKIP() << "no libcudnn.so.9 in " << seer_lib_dir()
                 << ": convolutions need Seer's cuDNN replacement";
  }
  TempDir out;
  const Outcome o = seer_torch("dgx-h100", out.path(),
                               torchrun(2, example("train_resnet50_ddp.py"),
                                        {"--batch-size", "32", "--steps", "3", "--channels-last"}));
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  const auto ms = numbers(o.out, R"(^step \d+: step ([0-9.]+) ms)");
  ASSERT_EQ(ms.size(), 3u) << o.describe();
  for (double m : ms) EXPECT_GT(m, 0.0);
  const nlohmann::json summary = read_json(out.file("summary.json"));
  EXPECT_EQ(summary["steps"].value("count", 0), 3);
  std::printf("[torch] ResNet-50 DDP x2 batch 32: step %.3f ms\n", ms.back());
}

}  // namespace
}  // namespace seer::e2e::torch
