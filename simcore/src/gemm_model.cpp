#include "seer/simcore/gemm_model.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace seer::sim {
namespace {

struct Tile {
  int m;
  int n;
};

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// CTA tiles cuBLAS uses for large GEMMs on Ampere/Hopper (256x128, 128x128, 128x64, 64x64, the
// long side along the longer matrix dimension), largest first.
std::array<Tile, 4> candidate_tiles(int64_t m, int64_t n) {
  if (m >= n) return {{{256, 128}, {128, 128}, {128, 64}, {64, 64}}};
  return {{{128, 256}, {128, 128}, {64, 128}, {64, 64}}};
}

// Device-memory traffic of one batch item with tile `t` and split `split` (see GEMM_MODEL.md).
double hbm_bytes_per_item(const GpuSpec& gpu, const GemmShape& s, Tile t, int split) {
  const double m = static_cast<double>(s.m);
  const double n = static_cast<double>(s.n);
  const double k = static_cast<double>(s.k);
  const double sa = dtype_bytes(s.a_type);
  const double sc = dtype_bytes(s.c_type);

  const double a_bytes = m * k * sa;
  const double b_bytes = k * n * sa;
  double operands = a_bytes + b_bytes;
  const int64_t tiles_m = ceil_div(s.m, t.m);
  const int64_t tiles_n = ceil_div(s.n, t.n);
  const int64_t tiles = tiles_m * tiles_n;
  const int64_t p = std::max(1, gpu.sm_count);
  if (split == 1 && tiles > p && operands > static_cast<double>(gpu.l2_bytes)) {
    // The operands do not stay in L2 across waves. A wave of p concurrent tiles covers a
    // rasterized, roughly square block of pr x pc tiles and reads the A rows and B columns of
    // that block; so every row panel of A is read once per column of blocks and every column
    // panel of B once per row of blocks.
    const int64_t side = static_cast<int64_t>(std::ceil(std::sqrt(static_cast<double>(p))));
    const int64_t pr = std::min(tiles_m, side);
    const int64_t pc = std::min(tiles_n, ceil_div(p, pr));
    operands = a_bytes * static_cast<double>(ceil_div(tiles_n, pc)) +
               b_bytes * static_cast<double>(ceil_div(tiles_m, pr));
  }
  double c_bytes = m * n * sc * (s.reads_c ? 2.0 : 1.0);
  if (s.has_bias) c_bytes += m * sc;
  // Split-K: every split writes an FP32 partial C tile that a reduction reads back.
  const double workspace = split > 1 ? 2.0 * split * m * n * 4.0 : 0.0;
  return operands + c_bytes + workspace;
}

GemmEstimate evaluate(const GpuSpec& gpu, const GemmShape& s, Tile t, int split, double peak,
                      int granule) {
  GemmEstimate e;
  e.tile_m = t.m;
  e.tile_n = t.n;
  e.split_k = split;
  e.peak_flops = peak;
  const int64_t sms = std::max(1, gpu.sm_count);
  const int64_t tiles = ceil_div(s.m, t.m) * ceil_div(s.n, t.n);
  e.ctas = tiles * s.batch * split;
  e.waves = ceil_div(e.ctas, sms);

  // A CTA computes its whole tile, padded only to the MMA granularity when the matrix is
  // smaller than the tile.
  const double em = static_cast<double>(std::min<int64_t>(t.m, ceil_div(s.m, granule) * granule));
  const double en = static_cast<double>(std::min<int64_t>(t.n, ceil_div(s.n, granule) * granule));
  const double ks = static_cast<double>(ceil_div(std::max<int64_t>(s.k, 0), split));
  const double per_sm = peak / static_cast<double>(sms) * kGemmMainloopEfficiency;
  const double mma_ns = per_sm > 0 ? 2.0 * em * en * ks / per_sm * 1e9 : 0.0;
  const double waves = static_cast<double>(e.waves);
  const double compute = waves * (mma_ns + static_cast<double>(kGemmTileOverheadNs));

  e.hbm_bytes = static_cast<double>(s.batch) * hbm_bytes_per_item(gpu, s, t, split);
  const double bw = gpu.hbm_bytes_per_s * kGemmHbmEfficiency;
  const double memory = bw > 0 ? e.hbm_bytes / bw * 1e9 : 0.0;

  e.compute_ns = static_cast<Time>(std::ceil(compute));
  e.memory_ns = static_cast<Time>(std::ceil(memory));
  e.ns = static_cast<Time>(std::ceil(std::max(compute, memory))) + kGemmLaunchOverheadNs;

  const double overhead =
      static_cast<double>(kGemmLaunchOverheadNs) + waves * static_cast<double>(kGemmTileOverheadNs);
  if (overhead >= std::max(waves * mma_ns, memory)) {
    e.bound = "launch";
  } else {
    e.bound = compute >= memory ? "compute" : "memory";
  }
  e.achieved_flops = gemm_flops(s) / (static_cast<double>(e.ns) * 1e-9);
  return e;
}

}  // namespace

int dtype_bytes(DType type) {
  switch (type) {
    case DType::kF64:
      return 8;
    case DType::kF32:
    case DType::kTF32:
    case DType::kI32:
      return 4;
    case DType::kF16:
    case DType::kBF16:
      return 2;
    case DType::kF8:
    case DType::kI8:
      return 1;
  }
  return 4;
}

const char* dtype_name(DType type) {
  switch (type) {
    case DType::kF64:
      return "f64";
    case DType::kF32:
      return "f32";
    case DType::kTF32:
      return "tf32";
    case DType::kF16:
      return "f16";
    case DType::kBF16:
      return "bf16";
    case DType::kF8:
      return "f8";
    case DType::kI8:
      return "i8";
    case DType::kI32:
      return "i32";
  }
  return "?";
}

double gemm_flops(const GemmShape& s) {
  if (s.m <= 0 || s.n <= 0 || s.k <= 0 || s.batch <= 0) return 0;
  return 2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k) *
         static_cast<double>(s.batch);
}

double gemm_peak_flops(const GpuSpec& gpu, DType compute) {
  auto or_else = [](double v, double fallback) { return v > 0 ? v : fallback; };
  switch (compute) {
    case DType::kF64:
      return or_else(gpu.fp64_tensor_flops, gpu.fp64_flops);
    case DType::kF32:
      return gpu.fp32_flops;
    case DType::kTF32:
      return or_else(gpu.tf32_dense_flops, gpu.fp32_flops);
    case DType::kF16:
      return or_else(gpu.fp16_dense_flops, gpu.fp32_flops);
    case DType::kBF16:
      return or_else(gpu.bf16_dense_flops, gpu.fp32_flops);
    case DType::kF8:
      return or_else(gpu.fp8_dense_flops, gemm_peak_flops(gpu, DType::kF16));
    case DType::kI8:
    case DType::kI32:
      return or_else(gpu.int8_dense_ops, gemm_peak_flops(gpu, DType::kF16));
  }
  return gpu.fp32_flops;
}

bool gemm_uses_tensor_cores(const GpuSpec& gpu, DType compute) {
  switch (compute) {
    case DType::kF64:
      return gpu.fp64_tensor_flops > 0;
    case DType::kF32:
      return false;
    case DType::kTF32:
      return gpu.tf32_dense_flops > 0;
    case DType::kF16:
      return gpu.fp16_dense_flops > 0;
    case DType::kBF16:
      return gpu.bf16_dense_flops > 0;
    case DType::kF8:
      return gpu.fp8_dense_flops > 0 || gpu.fp16_dense_flops > 0;
    case DType::kI8:
    case DType::kI32:
      return gpu.int8_dense_ops > 0 || gpu.fp16_dense_flops > 0;
  }
  return false;
}

GemmEstimate gemm_time(const GpuSpec& gpu, const GemmShape& shape) {
  if (shape.m <= 0 || shape.n <= 0 || shape.batch <= 0) {
    GemmEstimate none;
    none.bound = "launch";
    return none;
  }
  GemmShape s = shape;
  s.k = std::max<int64_t>(s.k, 0);
  const double peak = gemm_peak_flops(gpu, s.compute_type);
  const int granule = gemm_uses_tensor_cores(gpu, s.compute_type) ? kTensorCoreGranule : 1;
  const int64_t sms = std::max(1, gpu.sm_count);
  const std::array<Tile, 4> tiles = candidate_tiles(s.m, s.n);

  // Enough work for at least one full wave: the largest tile that still fills every SM
  // (the 1-CTA-per-SM wave quantization of big tiles is then visible, as in cuBLAS).
  for (const Tile& t : tiles) {
    const int64_t ctas = ceil_div(s.m, t.m) * ceil_div(s.n, t.n) * s.batch;
    if (ctas >= sms) return evaluate(gpu, s, t, 1, peak, granule);
  }
  // Too few tiles to fill the GPU even with the smallest one: the fastest tile and split-K
  // factor (powers of two, splits x tiles <= SMs), like cuBLAS's heuristics pick split-K
  // kernels for small m x n. The candidate set does not depend on k, so time is monotone in k.
  GemmEstimate best;
  bool have = false;
  for (const Tile& t : tiles) {
    const int64_t ctas = ceil_div(s.m, t.m) * ceil_div(s.n, t.n) * s.batch;
    for (int64_t split = 1; split == 1 || ctas * split <= sms; split *= 2) {
      const GemmEstimate e = evaluate(gpu, s, t, static_cast<int>(split), peak, granule);
      // Ties (memory- or launch-bound shapes) go to the configuration with more CTAs, which
      // spreads the traffic over more SMs as cuBLAS's GEMV-like kernels do.
      if (!have || e.ns < best.ns || (e.ns == best.ns && e.ctas > best.ctas)) {
        best = e;
        have = true;
      }
    }
  }
  return best;
}

Time gemv_time(const GpuSpec& gpu, int64_t rows, int64_t cols, DType type, int64_t batch) {
  GemmShape s;
  s.m = rows;
  s.n = 1;
  s.k = cols;
  s.batch = batch;
  s.a_type = type;
  s.c_type = type;
  s.compute_type = type == DType::kF64 ? DType::kF64 : DType::kF32;
  return gemm_time(gpu, s).ns;
}

Time elementwise_time(const GpuSpec& gpu, double bytes) {
  const double bw = gpu.hbm_bytes_per_s * kGemmHbmEfficiency;
  const double ns = bytes > 0 && bw > 0 ? bytes / bw * 1e9 : 0.0;
  return kElementwiseOverheadNs + static_cast<Time>(std::ceil(ns));
}

}  // namespace seer::sim
