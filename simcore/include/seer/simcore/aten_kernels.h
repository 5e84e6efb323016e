#pragma once

// Kernel-family models for PyTorch's own CUDA kernels (ATen and its in-tree attention), from the
// kernel's name and the size arguments the client copies (interposer/client/kernel_args.h).
// Documented, with sources, in simcore/src/ATEN_KERNELS.md.

#include <cstdint>
#include <optional>
#include <string>

#include "seer/simcore/gpu_spec.h"
#include "seer/simcore/op.h"
#include "seer/simcore/time.h"

namespace seer::sim {

enum class AtenFamily : uint8_t {
  kNone,
  kVectorizedElementwise,   // vectorized_elementwise_kernel: contiguous, no cast
  kUnrolledElementwise,     // unrolled_elementwise_kernel: contiguous with a cast
  kStridedElementwise,      // elementwise_kernel<nt, vt, f>: non-contiguous or broadcast
  kLayerNormForward,        // vectorized_layer_norm_kernel<T, T_ACC, rms>
  kMultiTensorApply,        // multi_tensor_apply_kernel: foreach ops, fused Adam/AdamW
  kChunkCat,                // FSDP2 reduce-scatter copy-in (chunk_cat_cuda_kernel)
  kSplitCopy,               // FSDP2 all-gather copy-out (split_with_sizes_copy_out_..._kernel)
  kSoftmax,                 // cunn_SoftMax{Forward,ForwardSmem,ForwardReg,Backward,BackwardSmem}
  kSoftmaxWarp,             // softmax_warp_{forward,backward}: rows of at most 1,024 elements
  kReduce,                  // reduce_kernel<nt, vec, ReduceOp<...>>: sum, mean, norms, min/max
  kLayerNormBackwardInput,  // layer_norm_grad_input_kernel[_vectorized]: dX
  kLayerNormBackwardGamma,  // GammaBetaBackwardCUDAKernelTemplate: dgamma, dbeta
  kGather,                  // vectorized_gather_kernel: index_select, embedding forward
  kEmbeddingBackward,       // embedding_backward_feature_kernel
  kIndexElementwise,        // index_elementwise_kernel: advanced indexing, flip
  kRandom,                  // distribution_elementwise_grid_stride_kernel: rand, randn, dropout
  kNllLoss,                 // nll_loss_{forward,backward}_reduce_cuda_kernel_2d: one block
  kFlashForward,            // pytorch_flash::flash_fwd_kernel
  kFlashBackward,           // pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel
  kFlashBackwardPrep,       // pytorch_flash::flash_bwd_dot_do_o_kernel
  kFlashBackwardConvert,    // pytorch_flash::flash_bwd_convert_dq_kernel
  kMemEffForward,           // fmha_cutlassF_* (memory-efficient attention)
  kMemEffBackward,          // fmha_cutlassB_*
  kCat,                     // CatArrayBatchedCopy[_contig|_alignedK_contig|_vectorized]
  // Sort-based backward chains and the cub kernels they run (aten_sort.cpp).
  kLayerNormTwoPass,   // RowwiseMomentsCUDAKernel, LayerNormForwardCUDAKernel (not vectorized)
  kRadixSort,          // cub DeviceRadixSort* (onesweep, histogram, up/downsweep, single tile)
  kCubScan,            // cub DeviceScanKernel, DeviceUniqueByKeySweepKernel
  kCubSmall,           // cub's one-wave helpers: scan/compact init, exclusive sum of the bins
  kEmbeddingSegments,  // compute_grad_weight[_atomic_accumulate|_bags], sum_and_scatter
  kEmbeddingHelper,    // krn_partials_per_segment & co., one thread per segment
  kIndexingBackward,   // indexing_backward_kernel[_stride_1|_small_stride]: index_put_ sort path
};

// Which kernel of a family that has several (kRadixSort, kCubScan, kEmbeddingSegments).
enum class AtenVariant : uint8_t {
  kNone,
  kOnesweep,          // DeviceRadixSortOnesweepKernel: one digit pass, keys and values
  kHistogram,         // DeviceRadixSortHistogramKernel: every digit's histogram, keys read once
  kUpsweep,           // DeviceRadixSortUpsweepKernel: one digit's counts, keys read
  kDownsweep,         // DeviceRadixSortDownsweepKernel: one digit pass, keys and values
  kSingleTile,        // DeviceRadixSortSingleTileKernel: one block sorts everything on chip
  kScan,              // DeviceScanKernel: read and write every item
  kUniqueByKey,       // DeviceUniqueByKeySweepKernel: keys read, offsets written
  kGradWeight,        // compute_grad_weight: partial sums of up to 10 gradient rows
  kGradWeightBags,    // compute_grad_weight_bags (EmbeddingBag)
  kGradWeightAtomic,  // compute_grad_weight_atomic_accumulate: partial sums added atomically
  kSumAndScatter,     // sum_and_scatter: the partial sums of each index into grad_weight
  kOneThread,         // compute_num_of_partial_segments: <<<1, 1>>>
};

struct AtenKernel {
  AtenFamily family = AtenFamily::kNone;
  int tensors = 0;               // inputs and outputs an element touches (elementwise)
  int element_bytes = 0;         // of the kernel's data type
  int out_element_bytes = 0;     // of its output, where it differs (reductions)
  bool needs_sizes = true;       // false: the grid alone sizes it (multi-tensor apply)
  double bytes_per_element = 0;  // softmax: bytes moved per row element, all passes together
  // Attention: head dimension, the tile sizes of the grid (queries per block for the forward
  // and the dO.O kernels, keys per block for the backward) and causality. Cat: elements per
  // vector of the innermost size (the _vectorized variant; else 1).
  int head_dim = 0;
  int tile = 0;
  bool causal = false;
  // cat: the output's dimensions (1-4) and whether the inputs are contiguous (_contig variants).
  int dims = 0;
  bool contiguous = true;
  // The sort-based families: which kernel, and the index type's size (embedding backward).
  AtenVariant variant = AtenVariant::kNone;
  int index_bytes = 0;
};

// Multi-tensor apply: each block handles one chunk of up to 65,536 elements of one tensor.
inline constexpr double kMultiTensorChunkElements = 65536;

// The family of a kernel by its demangled name (kNone when no model knows it).
AtenKernel classify_aten_kernel(const std::string& demangled);
// A short name for reports ("reductions", "flash attention forward", ...).
const char* aten_family_name(AtenFamily family);

// Streaming efficiency per family (fraction of peak HBM bandwidth).
inline constexpr double kContiguousElementwiseEfficiency = 0.90;
inline constexpr double kStridedElementwiseEfficiency = 0.60;
inline constexpr double kNormEfficiency = 0.80;
inline constexpr double kReduceEfficiency = 0.80;
inline constexpr double kSoftmaxEfficiency = 0.60;
inline constexpr Time kAtenKernelOverheadNs = 2000;
// A reduction whose outputs each take several blocks (gridDim.y > 1) finishes in a second pass.
inline constexpr Time kReduceSecondPassNs = 2000;
// One-block NLL loss: each thread's row costs two dependent global loads (target, then input).
inline constexpr Time kDependentLoadNs = 500;
// In-tree FlashAttention-2 runs at this fraction of upstream FA2's published rate (H100).
inline constexpr double kInTreeFlashFactor = 0.81;
// Memory-efficient attention (CUTLASS) against the in-tree FlashAttention-2.
inline constexpr double kMemEffFactor = 0.65;
// cub's radix sort: Onesweep's published 29.4 GKey/s (256M random 32-bit keys on an A100-40GB,
// arXiv 2206.01784) over the 36 B a key moves (4 passes of 8 bytes, one histogram read) against
// the A100-40GB's 1,555 GB/s.
inline constexpr double kRadixSortEfficiency = 29.4e9 * 36 / 1555e9;
// Embedding backward's segment sums: a thread per (partial segment, feature) reading scalar,
// index-chosen gradient rows (framework-kernels.md §4.1's strided guess).
inline constexpr double kSegmentEfficiency = 0.60;
// compute_grad_weight: a partial segment holds at most this many indices (NROWS_PER_THREAD).
inline constexpr int kEmbeddingRowsPerPartial = 10;

// Bytes one launch of a memory-bound family moves, or nullopt when its size arguments do not
// agree with its grid (the kernel then keeps the generic model), or for the compute-bound
// attention families. Multi-tensor apply takes no size arguments.
std::optional<double> aten_kernel_bytes(const AtenKernel& k, const LaunchGeometry& g,
                                        const uint64_t* sizes, int nsizes);
// ceil(ns), saturated at 10^17 ns (three years) so that absurd size arguments (read from a
// kernel's parameters, not validated by every family) never overflow simulated time.
Time saturated_ns(double ns);
// The time of a memory-bound family's launch that moves `bytes`.
Time aten_kernel_ns(const GpuSpec& gpu, const AtenKernel& k, double bytes);

// The modeled time of one launch of any family, or nullopt (the kernel keeps the generic model).
std::optional<Time> aten_kernel_time(const GpuSpec& gpu, const AtenKernel& k,
                                     const LaunchGeometry& g, const uint64_t* sizes, int nsizes);

// Attention (aten_attention.cpp).
struct AttentionShape {
  double batch = 0, heads = 0, seqlen_q = 0, seqlen_k = 0, head_dim = 0;
  bool causal = false;
};
// The shape of a flash or memory-efficient attention launch: its size arguments when they
// agree with the grid, else what the grid and the name give (self-attention: s_k = s_q).
std::optional<AttentionShape> attention_shape(const AtenKernel& k, const LaunchGeometry& g,
                                              const uint64_t* sizes, int nsizes);
// FLOPs by FlashAttention's convention: forward 4·b·h·s_q·s_k·d (halved when causal), backward
// 2.5× that.
double attention_flops(const AttentionShape& s, bool backward);
// Achieved FLOP/s of the in-tree FlashAttention-2 on `gpu`.
double flash_flops_per_s(const GpuSpec& gpu, const AttentionShape& s, bool backward);
std::optional<Time> attention_kernel_time(const GpuSpec& gpu, const AtenKernel& k,
                                          const LaunchGeometry& g, const uint64_t* sizes,
                                          int nsizes);
AtenKernel classify_attention_kernel(const std::string& demangled);

// Sort-based backward chains, cub, two-pass layer norm (aten_sort.cpp).
AtenKernel classify_sort_kernel(const std::string& demangled);
std::optional<double> sort_kernel_bytes(const AtenKernel& k, const LaunchGeometry& g,
                                        const uint64_t* sizes, int nsizes);
std::optional<Time> sort_kernel_time(const GpuSpec& gpu, const AtenKernel& k,
                                     const LaunchGeometry& g, const uint64_t* sizes, int nsizes);
bool is_sort_family(AtenFamily family);

}  // namespace seer::sim
