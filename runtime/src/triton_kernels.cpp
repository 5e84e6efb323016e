#include "triton_kernels.h"

#include <algorithm>

namespace seer::rt {

sim::TritonKernel triton_kernel_of(const wire::TritonKernel& w) {
  sim::TritonKernel k;
  k.kind = w.reduction() ? sim::TritonKind::kReduction : sim::TritonKind::kPointwise;
  k.size_dims = std::min(w.size_names_size(), sim::OpDesc::kMaxSizes);
  const uint32_t known_dims = (1u << k.size_dims) - 1;
  for (const wire::TritonAccess& a : w.accesses()) {
    sim::TritonAccess s;
    s.elem_bytes = a.elem_bytes();
    s.tile_elems = std::max<uint64_t>(1, a.tile_elems());
    s.dims = a.dims() & known_dims;
    s.per_program = a.per_program();
    s.atomic = a.atomic();
    s.reused = a.reused();
    s.repeats = std::max<uint64_t>(1, a.repeats());
    k.accesses.push_back(s);
  }
  if (w.dot_flops_per_program() > 0 && w.dot_dtype() >= 0 &&
      w.dot_dtype() <= static_cast<int>(sim::DType::kI32)) {
    k.dot_flops_per_program = w.dot_flops_per_program();
    k.dot_type = static_cast<sim::DType>(w.dot_dtype());
  }
  return k;
}

}  // namespace seer::rt
