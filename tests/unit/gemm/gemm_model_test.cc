// GEMM model (simcore/src/GEMM_MODEL.md) against published measurements and the qualitative
// behaviour cuBLAS shows: wave quantization, launch-bound small shapes, memory-bound GEMV.
// No test measures time; every number is the model's.
#include "seer/simcore/gemm_model.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "seer/simcore/gpu_spec.h"

namespace seer::sim {
namespace {

GpuSpec Gpu(const std::string& name) {
  auto g = find_gpu(name);
  EXPECT_TRUE(g.has_value()) << name;
  return g.value_or(GpuSpec{});
}
GpuSpec H100() { return Gpu("H100-SXM-80GB"); }
GpuSpec A100() { return Gpu("A100-SXM-80GB"); }
GpuSpec H200() { return Gpu("H200-SXM-141GB"); }

GemmShape Shape(int64_t m, int64_t n, int64_t k, DType t = DType::kBF16, int64_t batch = 1) {
  GemmShape s;
  s.m = m;
  s.n = n;
  s.k = k;
  s.batch = batch;
  s.a_type = t;
  s.c_type = t == DType::kF8 ? DType::kBF16 : t;  // FP8 GEMMs write BF16
  s.compute_type = t;
  return s;
}

double Tflops(const GpuSpec& g, const GemmShape& s) {
  return gemm_time(g, s).achieved_flops / 1e12;
}

void Report(const char* what, const GpuSpec& g, const GemmShape& s) {
  const GemmEstimate e = gemm_time(g, s);
  std::printf("[model] %-28s %-15s %6lldx%lldx%lld b%lld %-4s: %10.2f us %8.1f TFLOP/s (%s)\n",
              what, g.name.c_str(), static_cast<long long>(s.m), static_cast<long long>(s.n),
              static_cast<long long>(s.k), static_cast<long long>(s.batch),
              dtype_name(s.compute_type), e.ns / 1e3, e.achieved_flops / 1e12, e.bound);
}

TEST(GemmFlops, CountsMultiplyAndAdd) {
  EXPECT_DOUBLE_EQ(gemm_flops(Shape(8192, 8192, 8192)), 2.0 * 8192.0 * 8192.0 * 8192.0);
  EXPECT_DOUBLE_EQ(gemm_flops(Shape(3, 5, 7, DType::kBF16, 4)), 2.0 * 3 * 5 * 7 * 4);
  EXPECT_DOUBLE_EQ(gemm_flops(Shape(0, 5, 7)), 0);
}

TEST(GemmPeak, PicksThePipeOfTheComputeType) {
  const GpuSpec h = H100();
  EXPECT_DOUBLE_EQ(gemm_peak_flops(h, DType::kBF16), h.bf16_dense_flops);
  EXPECT_DOUBLE_EQ(gemm_peak_flops(h, DType::kF8), h.fp8_dense_flops);
  EXPECT_DOUBLE_EQ(gemm_peak_flops(h, DType::kF32), h.fp32_flops);
  EXPECT_DOUBLE_EQ(gemm_peak_flops(h, DType::kTF32), h.tf32_dense_flops);
  EXPECT_DOUBLE_EQ(gemm_peak_flops(h, DType::kF64), h.fp64_tensor_flops);
  EXPECT_DOUBLE_EQ(gemm_peak_flops(h, DType::kI8), h.int8_dense_ops);
  // A100 has no FP8 tensor cores: FP8 runs at the FP16 rate. L40S has no FP64 tensor cores.
  EXPECT_DOUBLE_EQ(gemm_peak_flops(A100(), DType::kF8), A100().fp16_dense_flops);
  const GpuSpec l = Gpu("L40S-PCIe-48GB");
  EXPECT_DOUBLE_EQ(gemm_peak_flops(l, DType::kF64), l.fp64_flops);
  EXPECT_FALSE(gemm_uses_tensor_cores(l, DType::kF64));
  EXPECT_FALSE(gemm_uses_tensor_cores(h, DType::kF32));
  EXPECT_TRUE(gemm_uses_tensor_cores(h, DType::kBF16));
}

// shared/reference/ground-truth.md and hardware.md: an 8192^3 bf16 GEMM measured ~770-800
// TFLOP/s on a real H100 SXM (PyTorch/cuBLAS); the brief holds the model to 790 +- 5 %.
// Independent check: ml-engineering's MAMF table (maximum achievable matmul FLOPS, best of a
// shape sweep) gives 794.5 TFLOP/s on H100 SXM.
TEST(GemmValidation, H100Bf16Big) {
  const GemmShape s = Shape(8192, 8192, 8192);
  Report("H100 big bf16", H100(), s);
  const GemmEstimate e = gemm_time(H100(), s);
  EXPECT_STREQ(e.bound, "compute");
  EXPECT_NEAR(e.achieved_flops / 1e12, 790.0, 0.05 * 790.0);
  EXPECT_GE(e.achieved_flops / 1e12, 770.0);
  EXPECT_LE(e.achieved_flops / 1e12, 829.5);
  // The same GPU's compute in an H200: same time on a compute-bound shape.
  EXPECT_NEAR(static_cast<double>(gemm_time(H200(), s).ns), static_cast<double>(e.ns),
              0.01 * static_cast<double>(e.ns));
}

// A100 SXM bf16 at 8192^3: 250-290 TFLOP/s. Source relied on: S. Bekman, ml-engineering,
// compute/accelerator/README.md, MAMF table: A100 SXM 271.2 TFLOP/s (86.9 % of 312, best
// shape 1024x10240x5120, torch 2.6 + CUDA 12.6); older table 267.9. Big square shapes land a
// few percent below the best shape.
TEST(GemmValidation, A100Bf16Big) {
  const GemmShape s = Shape(8192, 8192, 8192);
  Report("A100 big bf16", A100(), s);
  Report("A100 MAMF best shape", A100(), Shape(1024, 10240, 5120));
  const double tf = Tflops(A100(), s);
  EXPECT_GE(tf, 250.0);
  EXPECT_LE(tf, 290.0);
  // MAMF's best A100 shape within 10 % of the published 271.2.
  EXPECT_NEAR(Tflops(A100(), Shape(1024, 10240, 5120)), 271.2, 0.10 * 271.2);
  // The 40 GB A100 computes as fast.
  EXPECT_NEAR(Tflops(Gpu("A100-SXM-40GB"), s), tf, 0.01 * tf);
}

TEST(GemmValidation, H100OverA100OnBigShapes) {
  for (int64_t n : {4096, 8192, 16384}) {
    const GemmShape s = Shape(n, n, n);
    const double ratio = Tflops(H100(), s) / Tflops(A100(), s);
    std::printf("[model] H100/A100 bf16 %lld^3: %.2f\n", static_cast<long long>(n), ratio);
    EXPECT_GE(ratio, 2.8) << n;
    EXPECT_LE(ratio, 3.2) << n;
  }
}

// MAMF best shape on H100 SXM (6144x17920x2816 in the older table: 792.1 TFLOP/s; the newer
// 2048x2048x13312: 794.5 TFLOP/s): the model within 5 %.
TEST(GemmValidation, H100MamfShapes) {
  Report("H100 MAMF shape v1", H100(), Shape(6144, 17920, 2816));
  Report("H100 MAMF shape v2", H100(), Shape(2048, 2048, 13312));
  EXPECT_NEAR(Tflops(H100(), Shape(6144, 17920, 2816)), 792.1, 0.05 * 792.1);
  EXPECT_NEAR(Tflops(H100(), Shape(2048, 2048, 13312)), 794.5, 0.05 * 794.5);
}

TEST(GemmShapes, SmallShapesAreMuchSlowerPerFlop) {
  const GpuSpec h = H100();
  const double big = Tflops(h, Shape(8192, 8192, 8192));
  for (const GemmShape& s : {Shape(512, 512, 512), Shape(1024, 1024, 64), Shape(256, 256, 256)}) {
    Report("small", h, s);
    const GemmEstimate e = gemm_time(h, s);
    EXPECT_LT(e.achieved_flops / 1e12, 0.25 * big);
    EXPECT_STREQ(e.bound, "launch");
    EXPECT_GE(e.ns, kGemmLaunchOverheadNs + kGemmTileOverheadNs);
    EXPECT_LT(e.ns, 10000);  // a few microseconds, not more
  }
  // Mid-size shapes sit in between.
  const double mid = Tflops(h, Shape(2048, 2048, 2048));
  EXPECT_GT(mid, Tflops(h, Shape(512, 512, 512)));
  EXPECT_LT(mid, big);
}

// GEMV-like shapes stream B once: time ~ bytes / (HBM bandwidth x kGemmHbmEfficiency).
TEST(GemmShapes, SkinnyShapesAreMemoryBound) {
  for (const GpuSpec& g : {H100(), A100(), H200(), Gpu("B200-SXM-180GB")}) {
    for (int64_t m : {1, 16}) {
      const GemmShape s = Shape(m, 8192, 8192);
      const GemmEstimate e = gemm_time(g, s);
      Report("skinny", g, s);
      const double bytes = 2.0 * (m * 8192.0 + 8192.0 * 8192.0 + m * 8192.0);
      const double ideal_ns = bytes / (g.hbm_bytes_per_s * kGemmHbmEfficiency) * 1e9;
      EXPECT_STREQ(e.bound, "memory") << g.name << " m=" << m;
      EXPECT_NEAR(static_cast<double>(e.ns), ideal_ns + kGemmLaunchOverheadNs, 0.05 * ideal_ns)
          << g.name << " m=" << m;
    }
  }
  // Memory-bound GEMV scales with HBM bandwidth, not compute: H200 beats H100 by ~4.8/3.35.
  const GemmShape s = Shape(1, 16384, 16384);
  const double ratio = static_cast<double>(gemm_time(H100(), s).ns - kGemmLaunchOverheadNs) /
                       static_cast<double>(gemm_time(H200(), s).ns - kGemmLaunchOverheadNs);
  EXPECT_NEAR(ratio, 4.8 / 3.35, 0.03);
}

TEST(GemmShapes, GemvGoesThroughTheSameModel) {
  const GpuSpec h = H100();
  const Time t = gemv_time(h, 8192, 8192, DType::kF32);
  const double ideal_ns = 8192.0 * 8192.0 * 4 / (h.hbm_bytes_per_s * kGemmHbmEfficiency) * 1e9;
  EXPECT_NEAR(static_cast<double>(t), ideal_ns + kGemmLaunchOverheadNs, 0.05 * ideal_ns);
  // FP32 GEMV on the CUDA cores is still memory-bound (no tile padding on SIMT).
  EXPECT_LT(gemv_time(A100(), 8192, 8192, DType::kF32),
            static_cast<Time>(1.1 * 8192.0 * 8192.0 * 4 / (A100().hbm_bytes_per_s * 0.9) * 1e9) +
                kGemmLaunchOverheadNs);
  EXPECT_EQ(gemv_time(h, 0, 8192, DType::kF32), 0);
}

// A shape whose 128x256 tiles number sm_count + 1 needs a second, almost empty wave.
TEST(GemmShapes, WaveQuantizationIsVisible) {
  const GpuSpec h = H100();
  ASSERT_EQ(h.sm_count, 132);
  const GemmShape full = Shape(12 * 128, 11 * 256, 8192);  // 132 tiles of 128x256
  const GemmShape over = Shape(7 * 128, 19 * 256, 8192);   // 133 tiles of 128x256
  const GemmEstimate ef = gemm_time(h, full);
  const GemmEstimate eo = gemm_time(h, over);
  Report("one full wave", h, full);
  Report("one wave + 1 tile", h, over);
  EXPECT_EQ(ef.ctas, 132);
  EXPECT_EQ(ef.waves, 1);
  EXPECT_EQ(eo.ctas, 133);
  EXPECT_EQ(eo.waves, 2);
  EXPECT_EQ(eo.tile_m * eo.tile_n, 128 * 256);
  const double ratio = static_cast<double>(eo.ns) / static_cast<double>(ef.ns);
  EXPECT_GT(ratio, 1.8);  // ~2x the time for 1 % more work
  EXPECT_LT(ratio, 2.1);
  EXPECT_LT(eo.achieved_flops, 0.55 * ef.achieved_flops);
}

TEST(GemmShapes, MonotoneInK) {
  for (const GpuSpec& g : {H100(), A100(), Gpu("L40S-PCIe-48GB")}) {
    for (auto [m, n] : {std::pair<int64_t, int64_t>{4096, 4096},
                        {512, 512},
                        {1, 8192},
                        {64, 64},
                        {256, 1024},
                        {896, 4864}}) {
      for (DType t : {DType::kBF16, DType::kF32, DType::kF8}) {
        Time prev = 0;
        for (int64_t k = 0; k <= 65536; k = k < 16 ? k + 1 : k + k / 3) {
          const Time now = gemm_time(g, Shape(m, n, k, t)).ns;
          EXPECT_GE(now, prev) << g.name << " " << m << "x" << n << "x" << k << " "
                               << dtype_name(t);
          prev = now;
        }
      }
    }
  }
}

// MAMF table: FP8 on H100 SXM reaches 1402.6 TFLOP/s vs 794.5 for BF16 (1.77x); the model
// keeps one efficiency for all types and gives ~1.97x (see GEMM_MODEL.md, limitations).
TEST(GemmShapes, Fp8IsAboutTwiceBf16OnH100) {
  const GemmShape bf = Shape(8192, 8192, 8192);
  const GemmShape f8 = Shape(8192, 8192, 8192, DType::kF8);
  Report("H100 big fp8", H100(), f8);
  const double ratio = Tflops(H100(), f8) / Tflops(H100(), bf);
  EXPECT_GE(ratio, 1.7);
  EXPECT_LE(ratio, 2.05);
  // No FP8 on A100: same time as FP16 (minus the smaller operands, so not slower).
  EXPECT_LE(gemm_time(A100(), f8).ns, gemm_time(A100(), Shape(8192, 8192, 8192, DType::kF16)).ns);
}

TEST(GemmShapes, Fp32UsesTheFp32PeakAndTf32ItsOwn) {
  const GpuSpec h = H100();
  const GemmShape f32 = Shape(8192, 8192, 8192, DType::kF32);
  Report("H100 big fp32 (SIMT)", h, f32);
  const double tf = Tflops(h, f32) * 1e12;
  EXPECT_LE(tf, h.fp32_flops);
  EXPECT_GE(tf, 0.7 * h.fp32_flops);
  GemmShape tf32 = f32;
  tf32.compute_type = DType::kTF32;
  const double t32 = Tflops(h, tf32) * 1e12;
  EXPECT_LE(t32, h.tf32_dense_flops);
  EXPECT_GE(t32, 0.7 * h.tf32_dense_flops);
  // Same operand bytes, so the ratio of times is the ratio of peaks.
  EXPECT_NEAR(t32 / tf, h.tf32_dense_flops / h.fp32_flops,
              0.05 * h.tf32_dense_flops / h.fp32_flops);
  // A100 FP32 GEMM (19.5 TF peak) vs its BF16 (312 TF peak): ~16x slower.
  const double slow = static_cast<double>(gemm_time(A100(), f32).ns) /
                      static_cast<double>(gemm_time(A100(), Shape(8192, 8192, 8192)).ns);
  EXPECT_NEAR(slow, 312.0 / 19.5, 0.05 * 16);
}

TEST(GemmShapes, BatchScales) {
  const GpuSpec h = H100();
  const Time one = gemm_time(h, Shape(4096, 4096, 4096)).ns;
  const Time eight = gemm_time(h, Shape(4096, 4096, 4096, DType::kBF16, 8)).ns;
  EXPECT_NEAR(static_cast<double>(eight), 8.0 * static_cast<double>(one), 0.05 * 8 * one);
  // Small batched GEMMs fill the GPU together: far cheaper than one launch per item.
  const Time small = gemm_time(h, Shape(256, 256, 256)).ns;
  const Time batched = gemm_time(h, Shape(256, 256, 256, DType::kBF16, 64)).ns;
  EXPECT_GT(batched, small);
  EXPECT_LT(batched, 16 * small);
  for (int64_t b = 1; b < 256; b *= 2) {
    EXPECT_LE(gemm_time(h, Shape(512, 512, 512, DType::kBF16, b)).ns,
              gemm_time(h, Shape(512, 512, 512, DType::kBF16, 2 * b)).ns);
  }
}

TEST(GemmShapes, EveryCatalogGpuLandsInAPlausibleBand) {
  for (const std::string& name : gpu_catalog_names()) {
    const GpuSpec g = Gpu(name);
    const GemmShape s = Shape(8192, 8192, 8192);
    Report("big bf16", g, s);
    const double frac = gemm_time(g, s).achieved_flops / g.bf16_dense_flops;
    EXPECT_GT(frac, 0.70) << name;
    EXPECT_LT(frac, kGemmMainloopEfficiency) << name;
  }
}

TEST(GemmShapes, EpilogueTrafficAndDegenerateShapes) {
  const GpuSpec h = H100();
  GemmShape s = Shape(8192, 8192, 64);  // memory-bound: C dominates
  const GemmEstimate plain = gemm_time(h, s);
  s.reads_c = true;
  s.has_bias = true;
  const GemmEstimate beta = gemm_time(h, s);
  EXPECT_STREQ(plain.bound, "memory");
  EXPECT_GT(beta.ns, plain.ns);
  EXPECT_GT(beta.hbm_bytes, plain.hbm_bytes + 8192.0 * 8192.0 * 2 - 1);

  EXPECT_EQ(gemm_time(h, Shape(0, 8192, 8192)).ns, 0);
  EXPECT_EQ(gemm_time(h, Shape(8192, 8192, 8192, DType::kBF16, 0)).ns, 0);
  EXPECT_EQ(gemm_time(h, Shape(-5, 8, 8)).ns, 0);
  const GemmEstimate k0 = gemm_time(h, Shape(4096, 4096, 0));  // C = beta * C still launches
  EXPECT_GE(k0.ns, kGemmLaunchOverheadNs);
  EXPECT_DOUBLE_EQ(k0.achieved_flops, 0);
}

TEST(Elementwise, IsMemoryBound) {
  const GpuSpec h = H100();
  EXPECT_EQ(elementwise_time(h, 0), kElementwiseOverheadNs);
  const double gib = 1024.0 * 1024 * 1024;
  EXPECT_NEAR(static_cast<double>(elementwise_time(h, gib)),
              kElementwiseOverheadNs + gib / (3.35e12 * 0.9) * 1e9, 1.0);
  EXPECT_LT(elementwise_time(H200(), gib), elementwise_time(h, gib));
}

}  // namespace
}  // namespace seer::sim
