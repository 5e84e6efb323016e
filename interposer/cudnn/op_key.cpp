#include "op_key.h"

#include <algorithm>
#include <cstdint>

namespace seer::cudnn {

std::string op_label(const LibraryOp& op) {
  static const char* const kNames[] = {"f64", "f32", "tf32", "f16", "bf16", "f8", "i8"};
  return op.api + " [" + (op.dtype >= 0 && op.dtype < 7 ? kNames[op.dtype] : "?") + "]";
}

std::string op_params(const LibraryOp& op) {
  if (!op.gemm) {
    return "bytes=" + std::to_string(static_cast<uint64_t>(std::max(0.0, op.bytes)));
  }
  return "m=" + std::to_string(op.m) + ",n=" + std::to_string(op.n) + ",k=" + std::to_string(op.k) +
         ",batch=" + std::to_string(std::max<int64_t>(1, op.batch));
}

}  // namespace seer::cudnn
