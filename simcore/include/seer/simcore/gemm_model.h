#pragma once

#include <cstdint>

#include "seer/simcore/gpu_spec.h"
#include "seer/simcore/time.h"

namespace seer::sim {

// Library model for cuBLAS/cuBLASLt GEMMs: a per-dtype roofline with CTA-tile and wave
// quantization over the SMs. simcore/src/GEMM_MODEL.md documents the model, its constants and
// the published measurements it is validated against.

// Element / math types. kI32 is the 4-byte accumulator/output type of int8 GEMMs; as a compute
// type it means the int8 tensor pipe (cuBLAS CUBLAS_COMPUTE_32I).
enum class DType { kF64, kF32, kTF32, kF16, kBF16, kF8, kI8, kI32 };

int dtype_bytes(DType type);  // storage size of one element (kTF32 is stored as FP32: 4)
const char* dtype_name(DType type);

// C[batch] (m x n) = A[batch] (m x k) * B[batch] (k x n) (+ C) (+ bias), column/row major alike.
struct GemmShape {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  int64_t batch = 1;
  DType a_type = DType::kBF16;  // element type of A and B
  DType c_type = DType::kBF16;  // element type of C (and D)
  // The math pipe the kernel runs on, which picks the peak: kF32 = FP32 CUDA cores (SGEMM),
  // kTF32 = TF32 tensor cores, kF16/kBF16/kF8 = those tensor cores (FP32 accumulation),
  // kI8/kI32 = int8 tensor cores, kF64 = FP64 tensor cores where present (DGEMM).
  // cuBLAS mapping: CUBLAS_COMPUTE_32F with 16-bit A/B -> kF16/kBF16; with FP32 A/B -> kF32
  // (kTF32 with CUBLAS_COMPUTE_32F_FAST_TF32 or allow_tf32); CUBLAS_COMPUTE_64F -> kF64.
  DType compute_type = DType::kBF16;
  bool reads_c = false;   // beta != 0: C is read as well as written
  bool has_bias = false;  // the epilogue reads a bias vector of m or n elements
};

struct GemmEstimate {
  Time ns = 0;                   // modeled kernel duration
  double achieved_flops = 0;     // gemm_flops(shape) / duration
  const char* bound = "launch";  // "compute" | "memory" | "launch"
  // How the model got there (for reports and tests).
  int tile_m = 0;  // CTA tile chosen
  int tile_n = 0;
  int split_k = 1;        // k split across CTAs (only when the tiles alone leave SMs idle)
  int64_t ctas = 0;       // tiles x batch x split_k
  int64_t waves = 0;      // ceil(ctas / sm_count)
  double peak_flops = 0;  // peak of the math pipe used
  double hbm_bytes = 0;   // modeled device-memory traffic
  Time compute_ns = 0;    // waves x per-tile time (includes per-tile overhead)
  Time memory_ns = 0;     // hbm_bytes / (peak bandwidth x kGemmHbmEfficiency)
};

// Fraction of the datasheet dense peak that a cuBLAS mainloop sustains on a full-size tile,
// the same for every GPU and data type. Published maximum achievable matmul throughput (BF16,
// best shape of a sweep, where tile and wave quantization cost ~nothing) is 80.3 % of peak on
// H100 SXM, 83.6 % on GH200, 81.1 % on A100 PCIe and 86.9 % on A100 SXM (ml-engineering MAMF
// table); 0.84 is the middle of that range. The gap to 1.0 is the clock the GPU sustains under
// full tensor load (below the clock the peak is quoted at) plus mainloop issue and barrier
// overhead; no per-GPU fitting.
inline constexpr double kGemmMainloopEfficiency = 0.84;
// Fraction of peak device-memory bandwidth a streaming kernel reaches: measured D2D copies
// move ~3.0 of 3.35 TB/s on H100 and ~4.3 of 4.8 TB/s on H200 (shared/reference/hardware.md),
// the same 0.9 the copy model uses.
inline constexpr double kGemmHbmEfficiency = 0.9;
// Fixed cost of one GEMM kernel on the GPU (launch, grid setup, tail of the last wave): the
// shortest cuBLAS kernels last a few microseconds. Same value as the generic kernel base.
inline constexpr Time kGemmLaunchOverheadNs = 2000;
// Per-tile cost not overlapped with the mainloop: filling the shared-memory pipeline (the
// first k-slices come from HBM, ~0.5-0.8 us DRAM latency on A100/H100) and draining the
// epilogue (convert and store the C tile).
inline constexpr Time kGemmTileOverheadNs = 1000;
// Tensor-core MMA granularity along m and n (mma/wgmma N is a multiple of 8; cuBLAS swaps
// operands so that a tiny dimension lands there). CUDA-core (SIMT) kernels have granularity 1.
inline constexpr int kTensorCoreGranule = 8;
// Fixed cost of a memory-bound elementwise kernel (same as the generic kernel base).
inline constexpr Time kElementwiseOverheadNs = 2000;

// 2 * m * n * k * batch (multiply and add counted separately; bias/beta terms ignored).
double gemm_flops(const GemmShape& shape);

// Dense peak of the math pipe `compute` on `gpu`. A type the GPU lacks falls back to the next
// wider one that it has (FP8 on A100 runs at the FP16 rate; FP64 without FP64 tensor cores
// at the FP64 CUDA-core rate; TF32/FP16/BF16 on a GPU without tensor cores at FP32).
double gemm_peak_flops(const GpuSpec& gpu, DType compute);
// Whether `compute` runs on tensor cores on `gpu`.
bool gemm_uses_tensor_cores(const GpuSpec& gpu, DType compute);

// The GEMM model. Shapes with m, n or batch <= 0 take no time (cuBLAS returns without a
// launch); k <= 0 still scales C (memory traffic plus launch).
GemmEstimate gemm_time(const GpuSpec& gpu, const GemmShape& shape);

// Matrix-vector product y = A x with A `rows` x `cols` of `type` (cublas?gemv): the GEMM model
// with m = rows, n = 1, k = cols on the CUDA cores (FP32 math, FP64 for FP64), which comes out
// memory-bound (time ~ bytes of A / HBM bandwidth) for any realistic size. m = 1 GEMMs through
// gemm_time take the same path and are memory-bound too.
Time gemv_time(const GpuSpec& gpu, int64_t rows, int64_t cols, DType type, int64_t batch = 1);

// A memory-bound kernel moving `bytes` (read plus written):
// kElementwiseOverheadNs + bytes / (hbm_bytes_per_s * kGemmHbmEfficiency).
Time elementwise_time(const GpuSpec& gpu, double bytes);

}  // namespace seer::sim
