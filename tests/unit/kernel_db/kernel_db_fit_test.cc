// `seer db fit` (runtime/include/seer/runtime/kernel_db_fit.h): each entry against the model Seer
// would use without it, grouped by family.
#include "seer/runtime/kernel_db_fit.h"

#include <gtest/gtest.h>

#include <cmath>

#include "seer/simcore/cost_models.h"
#include "seer/simcore/gpu_spec.h"

namespace seer::rt {
namespace {

KernelDbEntry kernel(const std::string& name, uint32_t grid, uint32_t block, int64_t ns,
                     uint32_t samples = 1) {
  KernelDbEntry e;
  e.gpu = "H100-SXM-80GB";
  e.kernel = name;
  e.grid_x = grid;
  e.block_x = block;
  e.duration_ns = ns;
  e.samples = samples;
  return e;
}

const FamilyFit* family(const std::vector<FamilyFit>& fits, const std::string& name) {
  for (const FamilyFit& f : fits) {
    if (f.family == name) return &f;
  }
  return nullptr;
}

TEST(KernelDbFit, UnknownKernelsAreComparedWithTheGenericModel) {
  // Generic model on H100 (simcore/README.md): 2 us + 1.5 us per wave; 65536 x 256 threads take
  // 63 waves of 1056 blocks: 96500 ns. Measured 50000 ns: the model is 93 % slower.
  KernelDb db;
  db.put(kernel("scale(float*, unsigned long, float)", 65536, 256, 50000, 4));
  const EntryFit e = fit_entry(db.entries()[0]);
  EXPECT_EQ(e.family, "other kernels (generic model)");
  EXPECT_EQ(e.model_ns, 96500);
  const auto fits = fit_by_family(db, "");
  ASSERT_EQ(fits.size(), 1u);
  EXPECT_EQ(fits[0].entries, 1u);
  EXPECT_EQ(fits[0].launches, 4u);
  EXPECT_DOUBLE_EQ(fits[0].measured_ns, 200000);
  EXPECT_DOUBLE_EQ(fits[0].model_ns, 386000);
  EXPECT_DOUBLE_EQ(fits[0].mean_abs_error, 0.93);
  EXPECT_DOUBLE_EQ(fits[0].worst_signed, 0.93);
}

TEST(KernelDbFit, FusedAdamUsesItsFamilyModel) {
  // 256 chunks of 65536 floats, 7 tensor passes of 4 bytes (read p, g, m, v; write p, m, v)
  // at 90 % of H100's HBM bandwidth, plus 2 us.
  const std::string adam =
      "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
      "namespace)::FusedOptimizerTensorListMetadata<4>, at::native::(anonymous "
      "namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>, double, "
      "double, double, double, double, bool, double*, float const*, float const*>(...)";
  const sim::GpuSpec h100 = *sim::find_gpu("H100-SXM-80GB");
  const double bytes = 256.0 * 65536 * 28;
  const int64_t expected =
      2000 + static_cast<int64_t>(std::ceil(bytes / (h100.hbm_bytes_per_s * 0.9) * 1e9));
  const EntryFit e = fit_entry(kernel(adam, 256, 512, expected));
  EXPECT_EQ(e.family, "multi-tensor apply");
  EXPECT_EQ(e.model_ns, expected);
}

TEST(KernelDbFit, SizedElementwiseEntriesUseTheirFamilyModel) {
  // x + y on 2^22 floats: read two, write one, 4 bytes each, at 90 % of H100's HBM bandwidth.
  const std::string add =
      "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
      "std::array<char*, 3ul>, false>(int, at::native::CUDAFunctor_add<float>, std::array<char*, "
      "3ul>)";
  const double n = 1 << 22;
  const sim::GpuSpec h100 = *sim::find_gpu("H100-SXM-80GB");
  const int64_t expected =
      2000 + static_cast<int64_t>(std::ceil(n * 3 * 4 / (h100.hbm_bytes_per_s * 0.9) * 1e9));
  KernelDbEntry e = kernel(add, 8192, 128, 30000);
  e.sizes = {1 << 22};
  const EntryFit fit = fit_entry(e);
  EXPECT_EQ(fit.family, "vectorized elementwise");
  EXPECT_EQ(fit.model_ns, expected);
  e.sizes.clear();  // without its size: the generic model
  EXPECT_EQ(fit_entry(e).family, "vectorized elementwise (generic model)");
}

TEST(KernelDbFit, LibraryCallsUseTheLibraryModelFromTheirParameters) {
  KernelDbEntry gemm = kernel("cublasGemmEx [bf16]", 1, 1, 0);
  gemm.library_params = "m=8192,n=8192,k=8192,batch=1";
  sim::OpDesc op;
  op.kind = sim::OpKind::kLibrary;
  op.gemm = true;
  op.m = op.n = op.k = 8192;
  op.dtype = 4;  // bf16
  const int64_t model = sim::library_ns(*sim::find_gpu("H100-SXM-80GB"), op);
  // Against first principles: 2 * 8192^3 FLOPs cannot beat H100's dense BF16 peak (989 TFLOP/s).
  EXPECT_GT(model, static_cast<int64_t>(2.0 * 8192 * 8192 * 8192 / 989e12 * 1e9));
  gemm.duration_ns = model * 2;  // measured twice as slow: the model is 50 % fast
  KernelDb db;
  db.put(gemm);
  const auto fits = fit_by_family(db, "");
  ASSERT_EQ(fits.size(), 1u);
  EXPECT_EQ(fits[0].family, "cublasGemmEx [bf16]");
  EXPECT_NEAR(fits[0].worst_signed, -0.5, 1e-9);
  EXPECT_EQ(fits[0].worst_kernel, "cublasGemmEx [bf16] m=8192,n=8192,k=8192,batch=1");

  KernelDbEntry odd = gemm;
  odd.library_params = "rows=12";
  EXPECT_EQ(fit_entry(odd).family, "unreadable library calls (generic model)");
}

TEST(KernelDbFit, FamiliesAreOrderedByMeasuredTimeAndFilteredByGpu) {
  KernelDb db;
  db.put(kernel("small_kernel(int)", 1, 32, 3000));
  db.put(kernel("triton_poi_fused_add_0", 100, 128, 90000));
  KernelDbEntry a100 = kernel("small_kernel(int)", 1, 32, 3000);
  a100.gpu = "A100-SXM-80GB";
  db.put(a100);
  KernelDbEntry foreign = kernel("small_kernel(int)", 2, 32, 3000);
  foreign.gpu = "some-gpu-of-another-catalog";
  db.put(foreign);
  const auto all = fit_by_family(db, "");
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].family, "Triton kernels (generic model)");
  EXPECT_EQ(family(all, "other kernels (generic model)")->entries, 2u);  // foreign GPU skipped
  const auto h100 = fit_by_family(db, "H100-SXM-80GB");
  EXPECT_EQ(family(h100, "other kernels (generic model)")->entries, 1u);
  EXPECT_TRUE(fit_by_family(db, "H200-SXM-141GB").empty());
}

}  // namespace
}  // namespace seer::rt
