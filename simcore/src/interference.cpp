#include "seer/simcore/interference.h"

#include <algorithm>

#include "seer/simcore/collective_model.h"

namespace seer::sim {

GpuSpec contended_spec(const GpuSpec& gpu, const CommLoad& load) {
  GpuSpec s = gpu;
  if (gpu.sm_count > 0 && load.channels > 0) {
    s.sm_count = std::max(1, gpu.sm_count - load.channels);
    const double share = static_cast<double>(s.sm_count) / gpu.sm_count;
    for (double* peak :
         {&s.fp64_flops, &s.fp64_tensor_flops, &s.fp32_flops, &s.tf32_dense_flops,
          &s.fp16_dense_flops, &s.bf16_dense_flops, &s.fp8_dense_flops, &s.int8_dense_ops}) {
      *peak *= share;
    }
  }
  if (load.hbm_bytes_per_s > 0) {
    s.hbm_bytes_per_s =
        std::max(gpu.hbm_bytes_per_s * kMinHbmShare, gpu.hbm_bytes_per_s - load.hbm_bytes_per_s);
  }
  return s;
}

double collective_hbm_rate(const CollPart& part, int nranks, Time duration) {
  if (duration <= 0 || nranks < 2 || part.p2p()) return 0;
  const double n = nranks;
  const double size = static_cast<double>(collective_bytes(part, nranks));
  double link_bytes = size;
  double accesses = 2;
  switch (part.kind) {
    case CollKind::kAllReduce:
      link_bytes = 2 * (n - 1) / n * size;
      accesses = 3;
      break;
    case CollKind::kReduceScatter:
      link_bytes = (n - 1) / n * size;
      accesses = 3;
      break;
    case CollKind::kReduce:
      accesses = 3;
      break;
    case CollKind::kAllGather:
    case CollKind::kAllToAll:
    case CollKind::kGather:
    case CollKind::kScatter:
      link_bytes = (n - 1) / n * size;
      break;
    default:
      break;
  }
  return link_bytes * accesses / (static_cast<double>(duration) * 1e-9);
}

double collective_stretch(const GpuSpec& gpu, double collective_rate, double compute_rate) {
  const double bw = gpu.hbm_bytes_per_s;
  if (bw <= 0 || collective_rate <= 0 || compute_rate <= 0) return 1.0;
  return std::max(1.0, (collective_rate + compute_rate) / bw);
}

}  // namespace seer::sim
