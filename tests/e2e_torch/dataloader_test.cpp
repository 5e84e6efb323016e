// DataLoader worker processes (forked, CPU only) stay inert: only the training process joins the
// simulation, and the loop sees every batch.

#include "torch_util.h"

namespace seer::e2e::torch {
namespace {

using DataLoaderTest = TorchTest;

TEST_F(DataLoaderTest, WorkerProcessesStayOutOfTheSimulation) {
  TempDir out;
  const Outcome o =
      seer_torch("dgx-h100", out.path(), python_command(program("dataloader.py"), {}));
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  EXPECT_EQ(o.integer("batches"), 256 / 32);
  const nlohmann::json summary = read_json(out.file("summary.json"));
  ASSERT_EQ(summary["processes"].size(), 1u) << summary["processes"].dump(2);
  EXPECT_TRUE(summary["processes"][0].value("submitted_work", false));
}

}  // namespace
}  // namespace seer::e2e::torch
