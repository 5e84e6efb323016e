// Bytes and times of the memory-bound ATen families (ATEN_KERNELS.md).

#include <algorithm>
#include <cmath>

#include "seer/simcore/aten_kernels.h"

namespace seer::sim {
namespace {

bool is_attention(AtenFamily f) {
  return f == AtenFamily::kFlashForward || f == AtenFamily::kFlashBackward ||
         f == AtenFamily::kFlashBackwardPrep || f == AtenFamily::kFlashBackwardConvert ||
         f == AtenFamily::kMemEffForward || f == AtenFamily::kMemEffBackward;
}

// reduce_kernel: the client finds ReduceConfig inside the by-value ReduceOp and sends
// num_inputs, num_outputs, ctas_per_output and (block_width << 16 | block_height), which must
// match the launch (Reduce.cuh: block = (block_width, block_height), grid.y = ctas_per_output).
std::optional<double> reduce_bytes(const AtenKernel& k, const LaunchGeometry& g, const uint64_t* s,
                                   int n) {
  if (n < 4 || s[1] == 0) return std::nullopt;
  if (s[2] != g.gy || s[3] != ((uint64_t{g.bx} << 16) | g.by)) return std::nullopt;
  const double inputs = static_cast<double>(s[0]), outputs = static_cast<double>(s[1]);
  return outputs * inputs * k.element_bytes + outputs * k.out_element_bytes;
}

// softmax_warp: batch (rows), stride, element_count; a block holds blockDim.y warps of at most
// two rows each, and a row at most 2^log2_elements elements.
std::optional<double> softmax_warp_bytes(const AtenKernel& k, const LaunchGeometry& g,
                                         const uint64_t* s, int n) {
  if (n < 3 || s[2] == 0 || s[2] > static_cast<uint64_t>(k.tile)) return std::nullopt;
  if (s[0] > uint64_t{g.gx} * g.by * 2) return std::nullopt;
  return static_cast<double>(s[0]) * static_cast<double>(s[2]) * k.bytes_per_element;
}

}  // namespace

Time saturated_ns(double ns) {
  constexpr double kMaxNs = 1e17;
  if (!(ns > 0)) return 0;
  return static_cast<Time>(std::ceil(std::min(ns, kMaxNs)));
}

std::optional<double> aten_kernel_bytes(const AtenKernel& k, const LaunchGeometry& g,
                                        const uint64_t* sizes, int nsizes) {
  if (k.family == AtenFamily::kMultiTensorApply) {
    return static_cast<double>(g.blocks()) * kMultiTensorChunkElements * k.tensors *
           k.element_bytes;
  }
  if (is_sort_family(k.family)) return sort_kernel_bytes(k, g, sizes, nsizes);
  if (k.family == AtenFamily::kNone || is_attention(k.family) || nsizes < 1 || sizes[0] == 0) {
    return std::nullopt;
  }
  const double n = static_cast<double>(sizes[0]);
  const double blocks = static_cast<double>(g.gx);
  const double sz = k.element_bytes;
  switch (k.family) {
    case AtenFamily::kVectorizedElementwise:
    case AtenFamily::kUnrolledElementwise:
    case AtenFamily::kStridedElementwise: {
      // 128 threads x 4..16 elements per block (CUDALoops.cuh): N must fit the grid.
      if (n > blocks * 128 * 16 || n <= (blocks - 1) * 128) return std::nullopt;
      return n * k.tensors * sz;
    }
    case AtenFamily::kLayerNormForward:
      // N = the normalized size (param 0), M = rows = gridDim.x: read X, write Y, read gamma and
      // beta once, write mean and rstd (fp32).
      if (n > (1 << 24)) return std::nullopt;
      return blocks * n * 2 * sz + 2 * n * sz + 2 * blocks * 4;
    case AtenFamily::kLayerNormBackwardInput:
      // N = param 6, M = rows = gridDim.x: read dY and X, write dX; gamma once; mean, rstd.
      if (n > (1 << 24)) return std::nullopt;
      return 3 * blocks * n * sz + n * sz + 2 * blocks * 4;
    case AtenFamily::kLayerNormBackwardGamma: {
      // M, N = params 0, 1: read dY and X (M x N), mean and rstd (M), write dgamma and dbeta.
      if (nsizes < 2 || sizes[1] == 0) return std::nullopt;
      const double cols = static_cast<double>(sizes[1]);
      return 2 * n * cols * sz + 2 * n * 4 + 2 * cols * sz;
    }
    case AtenFamily::kChunkCat: {
      // slice_size bytes of output per leading-dimension slice (gridDim.z), read at
      // 1/dst_to_src_ratio of that (bf16 gradients into an fp32 buffer: half).
      if (nsizes < 2) return std::nullopt;
      const double out = n * static_cast<double>(g.gz);
      return out + out / static_cast<double>(std::max<uint64_t>(1, sizes[1]));
    }
    case AtenFamily::kSplitCopy:
      // src_stride bytes per chunk, num_chunks chunks: read and written once.
      if (nsizes < 2) return std::nullopt;
      return 2 * n * static_cast<double>(sizes[1]);
    case AtenFamily::kSoftmax:
      if (n > (uint64_t{1} << 32)) return std::nullopt;
      return blocks * n * k.bytes_per_element;
    case AtenFamily::kSoftmaxWarp:
      return softmax_warp_bytes(k, g, sizes, nsizes);
    case AtenFamily::kReduce:
      return reduce_bytes(k, g, sizes, nsizes);
    case AtenFamily::kGather: {
      // num_ind rows (param 3) of slice_size bytes (param 4) read and written, one int64 index
      // each; blockIdx.x walks the indices.
      if (nsizes < 2 || sizes[1] == 0 || blocks > n) return std::nullopt;
      return 2 * n * static_cast<double>(sizes[1]) + 8 * n;
    }
    case AtenFamily::kEmbeddingBackward: {
      // n indices (param 3) of `stride` features (param 4): the gradient rows read, the weight
      // gradient rows read and written, the indices read.
      if (nsizes < 2 || sizes[1] == 0) return std::nullopt;
      return 3 * n * static_cast<double>(sizes[1]) * sz + 8 * n;
    }
    case AtenFamily::kIndexElementwise:
      if (n > blocks * k.tile || n <= (blocks - 1) * k.tile) return std::nullopt;
      return n * k.bytes_per_element;
    case AtenFamily::kRandom:
      // Grid-stride: the grid is capped and says nothing of the size.
      return n * sz;
    case AtenFamily::kCat: {
      // The output (every input read once, written once); gridDim.y is the batch of inputs.
      if (nsizes < k.dims || k.dims < 1) return std::nullopt;
      double elements = 1;
      for (int d = 0; d < k.dims; ++d) {
        if (sizes[d] == 0) return std::nullopt;
        elements *= static_cast<double>(sizes[d]);
      }
      elements *= std::max(1, k.tile);  // the _vectorized variant counts vectors
      if (elements > 1e12) return std::nullopt;
      return 2 * elements * sz;
    }
    default:
      break;
  }
  return std::nullopt;
}

Time aten_kernel_ns(const GpuSpec& gpu, const AtenKernel& k, double bytes) {
  double efficiency = kContiguousElementwiseEfficiency;
  switch (k.family) {
    case AtenFamily::kStridedElementwise:
    case AtenFamily::kIndexElementwise:
      efficiency = kStridedElementwiseEfficiency;
      break;
    case AtenFamily::kCat:
      efficiency = k.contiguous ? kContiguousElementwiseEfficiency : kStridedElementwiseEfficiency;
      break;
    case AtenFamily::kLayerNormForward:
    case AtenFamily::kLayerNormBackwardInput:
    case AtenFamily::kLayerNormBackwardGamma:
      efficiency = kNormEfficiency;
      break;
    case AtenFamily::kSoftmax:
    case AtenFamily::kSoftmaxWarp:
      efficiency = kSoftmaxEfficiency;
      break;
    case AtenFamily::kReduce:
      efficiency = kReduceEfficiency;
      break;
    default:
      break;
  }
  const double bw = gpu.hbm_bytes_per_s * efficiency;
  const double ns = bytes > 0 && bw > 0 ? bytes / bw * 1e9 : 0.0;
  return kAtenKernelOverheadNs + saturated_ns(ns);
}

std::optional<Time> aten_kernel_time(const GpuSpec& gpu, const AtenKernel& k,
                                     const LaunchGeometry& g, const uint64_t* sizes, int nsizes) {
  if (k.family == AtenFamily::kNone) return std::nullopt;
  if (is_attention(k.family)) return attention_kernel_time(gpu, k, g, sizes, nsizes);
  if (is_sort_family(k.family)) return sort_kernel_time(gpu, k, g, sizes, nsizes);
  if (k.family == AtenFamily::kNllLoss) {
    // One block: each thread walks rows blockDim.x apart; a row is a target load and then the
    // dependent load of its input (backward: its store).
    if (nsizes < 1 || sizes[0] == 0 || g.blocks() != 1) return std::nullopt;
    const uint64_t threads = std::max<uint64_t>(1, g.threads_per_block());
    const uint64_t rows_per_thread = (sizes[0] + threads - 1) / threads;
    return kAtenKernelOverheadNs +
           saturated_ns(static_cast<double>(rows_per_thread) * 2 * kDependentLoadNs);
  }
  const std::optional<double> bytes = aten_kernel_bytes(k, g, sizes, nsizes);
  if (!bytes) return std::nullopt;
  Time t = aten_kernel_ns(gpu, k, *bytes);
  if (k.family == AtenFamily::kEmbeddingBackward && gpu.sm_count > 0) {
    // One block per 32 features: fewer blocks than SMs leave HBM bandwidth unused.
    const double used = std::min(1.0, static_cast<double>(g.blocks()) / gpu.sm_count);
    t = kAtenKernelOverheadNs + saturated_ns(static_cast<double>(t - kAtenKernelOverheadNs) / used);
  }
  if (k.family == AtenFamily::kReduce && g.gy > 1) t += kReduceSecondPassNs;
  return t;
}

}  // namespace seer::sim
