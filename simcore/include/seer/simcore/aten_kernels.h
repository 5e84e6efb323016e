#pragma once

// Kernel-family models for PyTorch's own CUDA kernels (ATen), from the kernel's name and the
// size arguments the client copies (interposer/client/kernel_args.h). Documented, with sources,
// in simcore/src/ATEN_KERNELS.md.

#include <cstdint>
#include <optional>
#include <string>

#include "seer/simcore/gpu_spec.h"
#include "seer/simcore/op.h"
#include "seer/simcore/time.h"

namespace seer::sim {

enum class AtenFamily : uint8_t {
  kNone,
  kVectorizedElementwise,  // vectorized_elementwise_kernel: contiguous, no cast
  kUnrolledElementwise,    // unrolled_elementwise_kernel: contiguous with a cast
  kStridedElementwise,     // elementwise_kernel<nt, vt, f>: non-contiguous or broadcast
  kLayerNormForward,       // vectorized_layer_norm_kernel<T, T_ACC, rms>
  kMultiTensorApply,       // multi_tensor_apply_kernel: foreach ops, fused Adam/AdamW
  kChunkCat,               // FSDP2 reduce-scatter copy-in (chunk_cat_cuda_kernel)
  kSplitCopy,              // FSDP2 all-gather copy-out (split_with_sizes_copy_out_..._kernel)
  kSoftmax,                // cunn_SoftMax{Forward,ForwardSmem,ForwardReg,Backward,BackwardSmem}
};

struct AtenKernel {
  AtenFamily family = AtenFamily::kNone;
  int tensors = 0;               // inputs and outputs an element touches (elementwise)
  int element_bytes = 0;         // of the kernel's data type
  bool needs_sizes = true;       // false: the grid alone sizes it (multi-tensor apply)
  double bytes_per_element = 0;  // softmax: bytes moved per row element, all passes together
};

// Multi-tensor apply: each block handles one chunk of up to 65,536 elements of one tensor.
inline constexpr double kMultiTensorChunkElements = 65536;

// The family of a kernel by its demangled name (kNone when no model knows it).
AtenKernel classify_aten_kernel(const std::string& demangled);

// Streaming efficiency per family (fraction of peak HBM bandwidth).
inline constexpr double kContiguousElementwiseEfficiency = 0.90;
inline constexpr double kStridedElementwiseEfficiency = 0.60;
inline constexpr double kNormEfficiency = 0.80;
inline constexpr double kSoftmaxEfficiency = 0.60;
inline constexpr Time kAtenKernelOverheadNs = 2000;

// Bytes one launch moves, or nullopt when its size arguments do not agree with its grid (the
// kernel then keeps the generic model). Multi-tensor apply takes no size arguments.
std::optional<double> aten_kernel_bytes(const AtenKernel& k, const LaunchGeometry& g,
                                        const uint64_t* sizes, int nsizes);
Time aten_kernel_ns(const GpuSpec& gpu, const AtenKernel& k, double bytes);

}  // namespace seer::sim
