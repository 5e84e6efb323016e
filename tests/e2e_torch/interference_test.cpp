// A GEMM timed with CUDA events while an all-gather runs beside it is the GEMM model's time on
// the SMs NCCL's channels leave (simcore/src/INTERFERENCE.md), whether it was queued before the
// all-gather or after the host asked whether the all-gather was complete, and its own time alone
// after the all-gather ends; the report accounts the difference.

#include "seer/simcore/interference.h"

#include "seer/simcore/gemm_model.h"
#include "torch_util.h"

namespace seer::e2e::torch {
namespace {

using InterferenceTest = TorchTest;

TEST_F(InterferenceTest, AGemmBesideAnAllGatherRunsOnTheSmsItLeaves) {
  TempDir out;
  const Outcome o = seer_torch("dgx-h100", out.path(), torchrun(2, program("overlap_gemm.py")));
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  const nlohmann::json summary = read_json(out.file("summary.json"));
  int channels = 0;
  for (const auto& c : summary["collectives"]) {
    if (c["op"] == "AllGather" && c["bytes"].get<double>() > 1e10) channels = c["channels"];
  }
  ASSERT_GT(channels, 0) << summary["collectives"].dump(2);

  const sim::GpuSpec h100 = *sim::find_gpu("H100-SXM-80GB");
  sim::GemmShape shape;
  shape.m = 1408;
  shape.n = 1536;
  shape.k = 8192;
  // cuBLAS sees torch.mm's row-major operands as the transposed column-major product: the
  // same tiles and waves either way round for this model.
  const int64_t alone = sim::gemm_time(h100, shape).ns;
  sim::CommLoad load;
  load.channels = channels;
  const int64_t beside = sim::gemm_time(sim::contended_spec(h100, load), shape).ns;
  ASSERT_GT(beside, alone);
  // Event times are floats in ms: a few ns of rounding.
  EXPECT_NEAR(o.integer("gemm_alone_ns"), alone, 5) << o.describe();
  EXPECT_NEAR(o.integer("gemm_beside_ns"), beside, 5) << o.describe();
  // Queued after the host queried the all-gather's completion: the query answers "not yet" at
  // once (interposer/client/THREADS.md, "Queries"), and the GEMMs still run beside it.
  EXPECT_EQ(o.integer("completed_at_once"), 0) << o.describe();
  EXPECT_NEAR(o.integer("gemm_after_query_ns"), beside, 5) << o.describe();
  // Two ranks, twice ten GEMMs each beside the all-gather (and the first warm-up GEMMs alone).
  EXPECT_GE(summary["interference"]["compute_ns"].get<int64_t>(), 2 * 20 * (beside - alone));
}

}  // namespace
}  // namespace seer::e2e::torch
