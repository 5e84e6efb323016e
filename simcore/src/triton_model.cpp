#include "seer/simcore/triton_model.h"

#include <algorithm>
#include <cmath>

namespace seer::sim {

double triton_bytes(const TritonKernel& kernel, const uint64_t* sizes, int nsizes,
                    uint64_t programs) {
  const bool sized = kernel.size_dims > 0 && nsizes >= kernel.size_dims;
  double bytes = 0;
  for (const TritonAccess& a : kernel.accesses) {
    if (a.reused) continue;
    double elems = 0;
    if (sized && a.dims != 0) {
      elems = 1;
      for (int d = 0; d < kernel.size_dims; ++d) {
        if (a.dims >> d & 1) elems *= static_cast<double>(sizes[d]);
      }
    } else {
      // Sized by the grid: every program moves its tile (masked-off lanes included) each time
      // the op runs.
      elems = static_cast<double>(a.tile_elems) * static_cast<double>(a.repeats) *
              (a.per_program ? static_cast<double>(programs) : 1.0);
    }
    bytes += elems * a.elem_bytes * (a.atomic ? 2.0 : 1.0);
  }
  return bytes;
}

Time triton_kernel_ns(const GpuSpec& gpu, TritonKind kind, double bytes, double flops,
                      DType dot_type) {
  const double efficiency =
      kind == TritonKind::kReduction ? kTritonReductionEfficiency : kTritonPointwiseEfficiency;
  const double bw = gpu.hbm_bytes_per_s * efficiency;
  double ns = bytes > 0 && bw > 0 ? bytes / bw * 1e9 : 0.0;
  const double peak = flops > 0 ? gemm_peak_flops(gpu, dot_type) * kGemmMainloopEfficiency : 0;
  if (peak > 0) ns = std::max(ns, flops / peak * 1e9);
  return kTritonOverheadNs + static_cast<Time>(std::ceil(ns));
}

}  // namespace seer::sim
