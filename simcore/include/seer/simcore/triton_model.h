#pragma once

// Triton kernels (Inductor's triton_poi_/triton_red_/triton_per_ kernels and user @triton.jit
// kernels) timed from the loads and stores of their Triton IR and the sizes they are launched
// with. Documented in simcore/src/TRITON_MODEL.md.

#include <cstdint>
#include <vector>

#include "seer/simcore/gemm_model.h"
#include "seer/simcore/gpu_spec.h"
#include "seer/simcore/op.h"
#include "seer/simcore/time.h"

namespace seer::sim {

// One tt.load / tt.store / atomic of a kernel.
struct TritonAccess {
  uint32_t elem_bytes = 0;
  uint64_t tile_elems = 1;   // elements one program instance moves each time the op runs
  uint32_t dims = 0;         // bit d: the address varies along named size dimension d
  bool per_program = false;  // the address depends on the program id
  bool atomic = false;       // read-modify-write: counted twice
  bool reused = false;       // a broadcast load (evict_last) that L2 serves: no HBM traffic
  uint64_t repeats = 1;      // times each program runs it (loops of known trip count)
};

enum class TritonKind : uint8_t {
  kPointwise,  // triton_poi_*, and user kernels
  kReduction,  // triton_red_*, triton_per_*
};

struct TritonKernel {
  TritonKind kind = TritonKind::kPointwise;
  std::vector<TritonAccess> accesses;
  // Named size dimensions (xnumel, ynumel, r0_numel, ...) whose values each launch carries, in
  // order. 0: a user kernel, sized by its launch geometry.
  int size_dims = 0;
  // tt.dot: FLOPs per program and the math pipe (gemm DType); none when dot_flops is 0.
  double dot_flops_per_program = 0;
  DType dot_type = DType::kBF16;
};

// Bytes one launch moves. `sizes` holds the launch's values of the named size dimensions
// (`nsizes` of them; fewer than the kernel names fall back to the launch geometry).
double triton_bytes(const TritonKernel& kernel, const uint64_t* sizes, int nsizes,
                    uint64_t programs);

// Streaming efficiency of each kind (fraction of peak HBM bandwidth) and the fixed cost.
inline constexpr double kTritonPointwiseEfficiency = 0.90;
inline constexpr double kTritonReductionEfficiency = 0.80;
inline constexpr Time kTritonOverheadNs = 2000;

// The larger of the memory time (bytes at the kind's efficiency) and the matrix-product time
// (FLOPs at the cuBLAS mainloop efficiency of the math pipe's peak), plus the fixed cost.
Time triton_kernel_ns(const GpuSpec& gpu, TritonKind kind, double bytes, double flops = 0,
                      DType dot_type = DType::kBF16);

}  // namespace seer::sim
