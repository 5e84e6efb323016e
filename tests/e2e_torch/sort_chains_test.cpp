// The sort-based embedding backward (8,192 indices: more than 3,072), index_put_ with accumulate,
// torch.sort of a long vector and a layer norm over 1,022 columns (not a multiple of 4: the
// two-pass fallback) run under `seer run`: none of their kernels is left on the generic model,
// and the ones whose sizes the program fixes take the family models' times, computed here from
// first principles (simcore/src/ATEN_KERNELS.md, "Sort-based embedding backward, cub, two-pass
// norms").

#include <cmath>
#include <map>
#include <string>

#include "seer/simcore/gpu_spec.h"
#include "torch_util.h"

namespace seer::e2e::torch {
namespace {

using SortChains = TorchTest;

int64_t expected_ns(double bytes, double efficiency) {
  const double bw = sim::find_gpu("H100-SXM-80GB")->hbm_bytes_per_s * efficiency;
  return 2000 + static_cast<int64_t>(std::ceil(bytes / bw * 1e9));
}

TEST_F(SortChains, SortPathsAndTwoPassNormTakeTheFamilyModels) {
  TempDir dir;
  const Outcome o = seer_torch("dgx-h100", dir.file("out"),
                               python_command(program("sort_chains.py"), {}), "modeled");
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  ASSERT_EQ(o.integer("tokens"), 8192);
  const nlohmann::json s = read_json(dir.file("out") + "/summary.json");

  // Each kernel these paths launch, by a piece of its name: it ran, and a family model timed it.
  struct Seen {
    int count = 0;
    int64_t total_ns = 0;
    bool generic = false;
  };
  const char* kKernels[] = {
      "DeviceRadixSortOnesweepKernel<at_cuda_detail::cub::detail::radix::"
      "policy_hub<long,",
      "DeviceRadixSortOnesweepKernel<at_cuda_detail::cub::detail::radix::"
      "policy_hub<float,",
      "DeviceRadixSortHistogramKernel<",
      "DeviceRadixSortExclusiveSumKernel<",
      "DeviceUniqueByKeySweepKernel<",
      "scan::DeviceScanKernel<",
      "krn_partials_per_segment<",
      "krn_partial_segment_offset<",
      "compute_num_of_partial_segments<",
      "compute_grad_weight<c10::BFloat16, long>",
      "sum_and_scatter<c10::BFloat16, long>",
      "indexing_backward_kernel<c10::BFloat16, 4>",
      "RowwiseMomentsCUDAKernel<c10::BFloat16, float, false>",
      "LayerNormForwardCUDAKernel<c10::BFloat16, float, false>"};
  std::map<std::string, Seen> seen;
  for (const auto& k : s["kernels"]) {
    const std::string name = k["name"].get<std::string>();
    for (const char* piece : kKernels) {
      if (name.find(piece) == std::string::npos) continue;
      Seen& e = seen[piece];
      e.count += k["count"].get<int>();
      e.total_ns += k["total_ns"].get<int64_t>();
      e.generic = e.generic || k["source"] != "family";
    }
  }
  for (const char* piece : kKernels) {
    EXPECT_GT(seen[piece].count, 0) << piece << " did not run\n" << s["kernels"].dump(1);
    EXPECT_FALSE(seen[piece].generic) << piece << " is not on a family model";
  }

  // Embedding backward, 8,192 int64 indices into a 32,000 x 1,024 bf16 table. compute_grad_weight
  // covers numel / 10 + min(numel, 32,000) rows, bounded by numel (every index distinct): it reads
  // every gradient row and index, writes an fp32 partial row per partial segment.
  const double numel = 8192, dim = 1024;
  const double partials = numel;
  EXPECT_EQ(seen["compute_grad_weight<c10::BFloat16, long>"].total_ns,
            expected_ns(numel * dim * 2 + numel * 8 + partials * 8 + partials * dim * 4, 0.6));
  // sum_and_scatter: min(numel, 32,000) segments, each an fp32 row read, a bf16 row written.
  EXPECT_EQ(seen["sum_and_scatter<c10::BFloat16, long>"].total_ns,
            expected_ns(numel * dim * (4 + 2) + numel * 3 * 8, 0.6));
  // index_put_(accumulate=True) of 8,192 bf16 rows of 1,024: value read, destination read and
  // written, two int64 per index.
  EXPECT_EQ(seen["indexing_backward_kernel<c10::BFloat16, 4>"].total_ns,
            expected_ns(numel * dim * 2 * 3 + 16 * numel, 0.6));
  // torch.sort of 2^20 floats with their int64 positions: four 8-bit digit passes, each reading
  // and writing keys and values, at Onesweep's published rate (29.4 GKey/s, 36 B per key, on an
  // A100-40GB's 1,555 GB/s: arXiv 2206.01784).
  const double onesweep = 29.4e9 * 36 / 1555e9;
  const auto& sort = seen
      ["DeviceRadixSortOnesweepKernel<at_cuda_detail::cub::detail::radix::"
       "policy_hub<float,"];
  EXPECT_EQ(sort.count, 4);
  EXPECT_EQ(sort.total_ns, 4 * expected_ns(2.0 * (1 << 20) * (4 + 8), onesweep));
  // LayerNorm(1022) over 4,096 bf16 rows: moments read X and write fp32 mean and rstd; the apply
  // pass reads X, gamma and beta and the statistics, writes Y; both at the norms' 0.8.
  const double rows = 4096, cols = 1022;
  EXPECT_EQ(seen["RowwiseMomentsCUDAKernel<c10::BFloat16, float, false>"].total_ns,
            expected_ns(rows * cols * 2 + 2 * rows * 4, 0.8));
  EXPECT_EQ(seen["LayerNormForwardCUDAKernel<c10::BFloat16, float, false>"].total_ns,
            expected_ns(2 * rows * cols * 2 + 2 * cols * 2 + 2 * rows * 4, 0.8));
}

}  // namespace
}  // namespace seer::e2e::torch
