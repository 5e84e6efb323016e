#include <cmath>
#include <stdexcept>

#include "seer/simcore/gpu_spec.h"

namespace seer::sim {

double power_limit_factor(double limit_watts, double tdp_watts) {
  if (limit_watts <= 0 || tdp_watts <= 0 || limit_watts >= tdp_watts) return 1.0;
  return std::cbrt(limit_watts / tdp_watts);
}

GpuSpec apply_variant(const GpuSpec& base, const GpuVariant& v) {
  GpuSpec g = base;
  g.name = v.name.empty() ? base.name + "-variant" : v.name;
  if (!v.marketing_name.empty()) g.marketing_name = v.marketing_name;
  if (v.memory_bytes) {
    if (*v.memory_bytes <= g.context_reserve_bytes) {
      throw std::invalid_argument("memory must exceed the CUDA context's reserve");
    }
    g.memory_bytes = *v.memory_bytes;
  }
  if (v.hbm_bytes_per_s) {
    if (!(*v.hbm_bytes_per_s > 0)) throw std::invalid_argument("memory bandwidth must be > 0");
    g.hbm_bytes_per_s = *v.hbm_bytes_per_s;
    if (g.memory_bus_width > 0) {
      g.memory_clock_khz =
          static_cast<int>(std::lround(g.hbm_bytes_per_s * 8 / (2.0 * g.memory_bus_width) / 1000));
    }
  }
  double scale = 1.0;
  if (v.clock_khz) {
    if (*v.clock_khz <= 0 || base.clock_khz <= 0) {
      throw std::invalid_argument("SM clock must be > 0");
    }
    scale = static_cast<double>(*v.clock_khz) / base.clock_khz;
    g.clock_khz = *v.clock_khz;
  }
  if (v.power_limit_watts) {
    if (!(*v.power_limit_watts > 0)) throw std::invalid_argument("power limit must be > 0");
    g.power_limit_watts = *v.power_limit_watts;
    scale *= power_limit_factor(*v.power_limit_watts, base.tdp_watts);
  }
  for (double* peak :
       {&g.fp64_flops, &g.fp64_tensor_flops, &g.fp32_flops, &g.tf32_dense_flops,
        &g.fp16_dense_flops, &g.bf16_dense_flops, &g.fp8_dense_flops, &g.int8_dense_ops}) {
    *peak *= scale;
  }
  return g;
}

}  // namespace seer::sim
