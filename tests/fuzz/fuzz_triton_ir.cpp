// Triton IR (.ttir) as the client reads it from Triton's cache (interposer/client/triton_ir.h):
// any text parses or is refused, never crashes; what parses converts to the session's model and
// gives finite, non-negative bytes and times for any sizes.

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "seer/simcore/gpu_spec.h"
#include "seer/simcore/triton_model.h"
#include "triton_ir.h"
#include "triton_kernels.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  seer::client::TritonIr ir;
  for (const char* kernel : {"k", "triton_poi_fused_0", "triton_red_fused_0", "triton_mm"}) {
    if (!seer::client::parse_triton_ir(text, kernel, ir)) continue;
    const seer::sim::TritonKernel k = seer::rt::triton_kernel_of(ir.model);
    const uint64_t sizes[4] = {1024, 4096, 1, 7};
    const double bytes = seer::sim::triton_bytes(k, sizes, 4, 1000);
    if (!(bytes >= 0)) std::abort();
    static const seer::sim::GpuSpec h100 = *seer::sim::find_gpu("H100-SXM-80GB");
    const double flops = k.dot_flops_per_program * 1000;
    if (std::isfinite(bytes) && std::isfinite(flops) && bytes < 1e18 && flops < 1e24 &&
        seer::sim::triton_kernel_ns(h100, k.kind, bytes, flops, k.dot_type) <= 0) {
      std::abort();
    }
    // Reading the size arguments stays inside the launch's parameter list.
    void* params[64] = {};
    int64_t values[64] = {};
    for (int i = 0; i < 64; ++i) params[i] = &values[i];
    uint64_t out[4];
    for (const auto& p : ir.size_params) {
      if (p.index < 0 || p.index >= 64) return 0;  // a signature longer than this test's array
    }
    seer::client::read_size_args(ir, params, out, 4);
  }
  return 0;
}
