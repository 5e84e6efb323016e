// Sort-based backward chains (embedding backward with many indices, index_put_ with accumulate),
// the cub kernels they and torch.sort run, and the two-pass layer norm (ATEN_KERNELS.md, "Sort-
// based embedding backward, cub, two-pass norms").

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "aten_names.h"
#include "seer/simcore/aten_kernels.h"

namespace seer::sim {
namespace {

using aten_names::first_element_bytes;
using aten_names::split_args;
using aten_names::template_args;

// Sizes beyond these are not PyTorch launches (int64 element counts of a tensor that fits a GPU,
// an embedding row of at most 2^31 features): such arguments keep the generic model.
constexpr uint64_t kMaxItems = uint64_t{1} << 40;
constexpr uint64_t kMaxRow = uint64_t{1} << 31;

bool has(const std::string& name, const char* s) { return name.find(s) != std::string::npos; }

// The arguments of the template that opens at `open` (the position of its '<').
std::vector<std::string> args_at(const std::string& name, size_t open) {
  if (open == std::string::npos || open >= name.size() || name[open] != '<') return {};
  int depth = 0;
  for (size_t i = open; i < name.size(); ++i) {
    if (name[i] == '<') ++depth;
    if (name[i] == '>' && --depth == 0) return split_args(name.substr(open + 1, i - open - 1));
  }
  return {};
}

// Size of one data type named by a template argument: cub's own spellings, PyTorch's
// OpaqueType<k> (radix sort values) and NullType (a keys-only sort) included. 0 when unknown.
int type_bytes(const std::string& t) {
  if (has(t, "NullType")) return 0;
  if (has(t, "OpaqueType<")) {
    const int k = aten_names::opaque_type_bytes(t);
    return k >= 1 && k <= 16 ? k : -1;
  }
  if (has(t, "__half") || has(t, "__nv_bfloat16")) return 2;
  return first_element_bytes(t);
}

// acc_type<T, true>: double stays double, everything else accumulates in float.
int acc_bytes(int element_bytes) { return element_bytes == 8 ? 8 : 4; }

// cub's DeviceRadixSort kernels: policy_hub<KeyT, ValueT, OffsetT>.
AtenKernel classify_radix_sort(const std::string& name) {
  AtenKernel k;
  struct Kernel {
    const char* name;
    AtenVariant variant;
  };
  static constexpr Kernel kKernels[] = {
      {"DeviceRadixSortOnesweepKernel<", AtenVariant::kOnesweep},
      {"DeviceRadixSortHistogramKernel<", AtenVariant::kHistogram},
      {"DeviceRadixSortUpsweepKernel<", AtenVariant::kUpsweep},
      {"DeviceRadixSortDownsweepKernel<", AtenVariant::kDownsweep},
      {"DeviceRadixSortSingleTileKernel<", AtenVariant::kSingleTile},
  };
  for (const Kernel& kernel : kKernels) {
    if (!has(name, kernel.name)) continue;
    const std::vector<std::string> hub = args_at(name, name.find('<', name.find("policy_hub")));
    if (hub.size() < 2) return k;
    const int key = type_bytes(hub[0]), value = type_bytes(hub[1]);
    if (key <= 0 || value < 0) return k;
    k.family = AtenFamily::kRadixSort;
    k.variant = kernel.variant;
    k.element_bytes = key;
    k.out_element_bytes = value;
    return k;
  }
  return k;
}

// DeviceScanKernel<policy_hub<In, Out, Acc, Offset, Op>::Policy, ...> and
// DeviceUniqueByKeySweepKernel<policy_hub<Key, Value>::Policy, KeysIn, ValuesIn, KeysOut,
// ValuesOut, ...>.
AtenKernel classify_cub_scan(const std::string& name) {
  AtenKernel k;
  const std::vector<std::string> hub = args_at(name, name.find('<', name.find("policy_hub")));
  if (hub.empty()) return k;
  if (has(name, "scan::DeviceScanKernel<")) {
    if (hub.size() < 2) return k;
    const int in = type_bytes(hub[0]), out = type_bytes(hub[1]);
    k.element_bytes = in > 0 ? in : 4;
    k.out_element_bytes = out > 0 ? out : k.element_bytes;
    k.variant = AtenVariant::kScan;
  } else {
    const std::vector<std::string> a = split_args(template_args(name));
    if (a.size() < 5) return k;
    const int key = type_bytes(hub[0]), offset = type_bytes(a[4]);
    k.element_bytes = key > 0 ? key : 4;
    k.out_element_bytes = offset > 0 ? offset : 4;
    k.variant = AtenVariant::kUniqueByKey;
  }
  k.family = AtenFamily::kCubScan;
  return k;
}

// EmbeddingBackwardKernel.cu's kernels: <scalar_t, index_t>, the atomic one
// <scalar_t, output_t, index_t>; the helpers <index_t>.
AtenKernel classify_embedding_segments(const std::string& name) {
  AtenKernel k;
  const std::vector<std::string> a = split_args(template_args(name));
  if (has(name, "::krn_partials_per_segment<") || has(name, "::krn_partial_segment_offset<") ||
      has(name, "::krn_partial_to_segment_idx<") ||
      has(name, "::compute_num_of_partial_segments<")) {
    if (a.empty()) return k;
    k.index_bytes = first_element_bytes(a[0]);
    if (k.index_bytes <= 0) return k;
    k.family = AtenFamily::kEmbeddingHelper;
    k.needs_sizes = false;
    if (has(name, "::compute_num_of_partial_segments<")) k.variant = AtenVariant::kOneThread;
    return k;
  }
  if (a.size() < 2) return k;
  k.element_bytes = first_element_bytes(a[0]);
  k.index_bytes = first_element_bytes(a.back());
  if (k.element_bytes <= 0 || k.index_bytes <= 0) return k;
  k.out_element_bytes = acc_bytes(k.element_bytes);
  if (has(name, "::compute_grad_weight_atomic_accumulate<")) {
    if (a.size() < 3) return k;
    k.out_element_bytes = first_element_bytes(a[1]);
    if (k.out_element_bytes <= 0) return k;
    k.variant = AtenVariant::kGradWeightAtomic;
  } else if (has(name, "::compute_grad_weight_bags<")) {
    k.variant = AtenVariant::kGradWeightBags;
  } else if (has(name, "::compute_grad_weight<")) {
    k.variant = AtenVariant::kGradWeight;
  } else if (has(name, "::sum_and_scatter<")) {
    k.variant = AtenVariant::kSumAndScatter;
  } else {
    return k;
  }
  k.family = AtenFamily::kEmbeddingSegments;
  return k;
}

// Layer norm when the vectorized kernel cannot run (N % 4 != 0, misaligned, double):
// RowwiseMomentsCUDAKernel<T, T_ACC, rms>(M, N, eps, X, mean, rstd) then
// LayerNormForwardCUDAKernel<T, T_ACC, rms>(M, N, X, mean, rstd, gamma, beta, Y), a block per row.
AtenKernel classify_two_pass_norm(const std::string& name, int tensors) {
  AtenKernel k;
  const std::vector<std::string> a = split_args(template_args(name));
  if (a.size() < 2) return k;
  k.element_bytes = first_element_bytes(a[0]);
  k.out_element_bytes = first_element_bytes(a[1]);
  if (k.element_bytes <= 0 || k.out_element_bytes <= 0) return k;
  k.family = AtenFamily::kLayerNormTwoPass;
  k.tensors = tensors;
  return k;
}

// The rows (segments or partial segments) a launch of the embedding segment kernels covers: a
// thread per (row, feature), features padded to whole warps (stride_warped), block =
// min(stride_warped, 1024), grid = ceil(rows * stride_warped / block).
std::optional<double> segment_rows(const LaunchGeometry& g, uint64_t stride) {
  if (stride == 0 || stride > kMaxRow) return std::nullopt;
  const uint64_t warped = (stride + 31) / 32 * 32;
  if (g.threads_per_block() != std::min<uint64_t>(warped, 1024) || g.gy != 1 || g.gz != 1) {
    return std::nullopt;
  }
  return std::floor(static_cast<double>(g.gx) * static_cast<double>(g.threads_per_block()) /
                    static_cast<double>(warped));
}

std::optional<double> embedding_segment_bytes(const AtenKernel& k, const LaunchGeometry& g,
                                              const uint64_t* s, int n) {
  const double sz = k.element_bytes, idx = k.index_bytes, acc = k.out_element_bytes;
  if (k.variant == AtenVariant::kSumAndScatter) {
    // stride = param 2. The grid covers max_segments = min(numel, num_weights) rows, the bound on
    // the distinct indices; each reads its partial sums (taken as one row: a segment of at most
    // 10 indices) and writes its weight-gradient row.
    if (n < 1) return std::nullopt;
    const std::optional<double> segments = segment_rows(g, s[0]);
    if (!segments || *segments < 1) return std::nullopt;
    const double stride = static_cast<double>(s[0]);
    return *segments * stride * (acc + sz) + *segments * 3 * idx;
  }
  // numel and stride. The grid covers max_partial_segment = numel / 10 + max_segments rows; the
  // partial segments are at most that and at most numel (every index distinct).
  if (n < 2 || s[0] == 0 || s[0] > kMaxItems) return std::nullopt;
  const std::optional<double> rows = segment_rows(g, s[1]);
  const double numel = static_cast<double>(s[0]), stride = static_cast<double>(s[1]);
  if (!rows || *rows < std::ceil(numel / kEmbeddingRowsPerPartial)) return std::nullopt;
  const double partials = std::min(numel, *rows);
  // Every index's gradient row is read once, with its index; each partial segment has an offset.
  double bytes = numel * stride * sz + numel * idx + partials * idx;
  switch (k.variant) {
    case AtenVariant::kGradWeightAtomic:
      // Each partial sum is added (read, written) into the weight gradient; its segment and
      // target row are looked up.
      return bytes + partials * stride * 2 * acc + partials * 2 * idx;
    case AtenVariant::kGradWeightBags:
      bytes += numel * idx;  // offset2bag
      [[fallthrough]];
    default:
      return bytes + partials * stride * acc;
  }
}

// The single-item-count cub kernels: bytes per item by variant.
std::optional<double> cub_bytes(const AtenKernel& k, const LaunchGeometry& g, uint64_t items) {
  if (items == 0 || items > kMaxItems) return std::nullopt;
  const double n = static_cast<double>(items);
  const double key = k.element_bytes, value = k.out_element_bytes;
  switch (k.variant) {
    case AtenVariant::kOnesweep:
      // One portion's digit pass: keys and values read and written (decoupled look-back keeps
      // it at 2n, arXiv 2206.01784). A block sorts a tile of items: never more blocks than items.
      if (g.blocks() > items) return std::nullopt;
      return 2 * n * (key + value);
    case AtenVariant::kSingleTile:
      if (g.blocks() != 1) return std::nullopt;
      return 2 * n * (key + value);
    case AtenVariant::kDownsweep:
      return 2 * n * (key + value);
    case AtenVariant::kHistogram:
    case AtenVariant::kUpsweep:
      return n * key;
    case AtenVariant::kScan:
    case AtenVariant::kUniqueByKey:
      // Scan: every item read and written. Unique by key: keys read, an offset written per
      // distinct key (bounded by every key distinct).
      return n * (key + value);
    default:
      break;
  }
  return std::nullopt;
}

}  // namespace

bool is_sort_family(AtenFamily f) {
  switch (f) {
    case AtenFamily::kLayerNormTwoPass:
    case AtenFamily::kRadixSort:
    case AtenFamily::kCubScan:
    case AtenFamily::kCubSmall:
    case AtenFamily::kEmbeddingSegments:
    case AtenFamily::kEmbeddingHelper:
    case AtenFamily::kIndexingBackward:
      return true;
    default:
      return false;
  }
}

AtenKernel classify_sort_kernel(const std::string& name) {
  if (has(name, "at_cuda_detail::cub::")) {
    if (has(name, "radix_sort::DeviceRadixSort") && !has(name, "ExclusiveSumKernel<")) {
      return classify_radix_sort(name);
    }
    if (has(name, "scan::DeviceScanKernel<") ||
        has(name, "unique_by_key::DeviceUniqueByKeySweepKernel<")) {
      return classify_cub_scan(name);
    }
    if (has(name, "DeviceRadixSortExclusiveSumKernel<") || has(name, "RadixSortScanBinsKernel<") ||
        has(name, "scan::DeviceScanInitKernel<") || has(name, "scan::DeviceCompactInitKernel<")) {
      AtenKernel k;
      k.family = AtenFamily::kCubSmall;
      k.needs_sizes = false;
      return k;
    }
    return {};
  }
  if (has(name, "::RowwiseMomentsCUDAKernel<")) return classify_two_pass_norm(name, 1);
  if (has(name, "::LayerNormForwardCUDAKernel<")) return classify_two_pass_norm(name, 2);
  if (has(name, "::krn_") || has(name, "::compute_grad_weight") ||
      has(name, "::sum_and_scatter<") || has(name, "::compute_num_of_partial_segments<")) {
    return classify_embedding_segments(name);
  }
  if (has(name, "::indexing_backward_kernel<") ||
      has(name, "::indexing_backward_kernel_stride_1<") ||
      has(name, "::indexing_backward_kernel_small_stride<")) {
    AtenKernel k;
    const std::vector<std::string> a = split_args(template_args(name));
    if (a.empty()) return k;
    k.element_bytes = first_element_bytes(a[0]);
    if (k.element_bytes <= 0) k.element_bytes = 4;
    k.family = AtenFamily::kIndexingBackward;
    return k;
  }
  return {};
}

std::optional<double> sort_kernel_bytes(const AtenKernel& k, const LaunchGeometry& g,
                                        const uint64_t* s, int n) {
  switch (k.family) {
    case AtenFamily::kLayerNormTwoPass: {
      // N = param 1 (long), M = rows = gridDim.x. Moments: X read, mean and rstd written.
      // Apply: X read, Y written, gamma and beta read once, mean and rstd read.
      if (n < 1 || s[0] == 0 || s[0] > kMaxRow) return std::nullopt;
      const double cols = static_cast<double>(s[0]), rows = static_cast<double>(g.gx);
      const double sz = k.element_bytes, acc = k.out_element_bytes;
      const double gamma_beta = k.tensors == 2 ? 2 * cols * sz : 0;
      return rows * cols * k.tensors * sz + gamma_beta + 2 * rows * acc;
    }
    case AtenFamily::kRadixSort:
    case AtenFamily::kCubScan:
      if (n < 1) return std::nullopt;
      return cub_bytes(k, g, s[0]);
    case AtenFamily::kCubSmall:
      // Tile descriptors, bins: a few words per thread of one small grid.
      return static_cast<double>(g.blocks() * g.threads_per_block()) * 8;
    case AtenFamily::kEmbeddingHelper:
      // A thread per segment (grid = ceil(max_segments / 32) x 32): its offset, partial count
      // and partial offset read, the partial offsets written (about one index per segment).
      return static_cast<double>(g.blocks() * g.threads_per_block()) * 4 * k.index_bytes;
    case AtenFamily::kEmbeddingSegments:
      return embedding_segment_bytes(k, g, s, n);
    case AtenFamily::kIndexingBackward: {
      // numel, stride (slice size), outer_dim, accumulate (params 4, 5, 7, 8). Each index moves
      // one slice per outer row: the value read, the destination written, and read first when
      // accumulating (every index distinct: the bound); its sorted index and position read.
      if (n < 4 || s[0] == 0 || s[1] == 0 || s[2] == 0) return std::nullopt;
      if (s[0] > kMaxItems || s[1] > kMaxItems || s[2] > kMaxItems) return std::nullopt;
      if (g.gx > s[0]) return std::nullopt;
      const double numel = static_cast<double>(s[0]);
      const double elements = numel * static_cast<double>(s[1]) * static_cast<double>(s[2]);
      if (elements > 1e15) return std::nullopt;
      return elements * k.element_bytes * (s[3] != 0 ? 3 : 2) + 16 * numel;
    }
    default:
      break;
  }
  return std::nullopt;
}

std::optional<Time> sort_kernel_time(const GpuSpec& gpu, const AtenKernel& k,
                                     const LaunchGeometry& g, const uint64_t* s, int n) {
  if (k.family == AtenFamily::kEmbeddingHelper && k.variant == AtenVariant::kOneThread) {
    // <<<1, 1>>>: the segment count, then the last segment's two entries (dependent loads).
    if (g.blocks() != 1) return std::nullopt;
    return kAtenKernelOverheadNs + 2 * kDependentLoadNs;
  }
  const std::optional<double> bytes = sort_kernel_bytes(k, g, s, n);
  if (!bytes) return std::nullopt;
  double efficiency = kContiguousElementwiseEfficiency;
  switch (k.family) {
    case AtenFamily::kLayerNormTwoPass:
      efficiency = kNormEfficiency;
      break;
    case AtenFamily::kRadixSort:
      efficiency = kRadixSortEfficiency;
      break;
    case AtenFamily::kEmbeddingSegments:
      efficiency = kSegmentEfficiency;
      break;
    case AtenFamily::kEmbeddingHelper:
    case AtenFamily::kIndexingBackward:
      efficiency = kStridedElementwiseEfficiency;
      break;
    default:
      break;
  }
  double bandwidth = gpu.hbm_bytes_per_s * efficiency;
  // One block sorts the whole input: one SM's share of the bandwidth.
  if (k.variant == AtenVariant::kSingleTile && gpu.sm_count > 0) bandwidth /= gpu.sm_count;
  const double ns = *bytes > 0 && bandwidth > 0 ? *bytes / bandwidth * 1e9 : 0.0;
  return kAtenKernelOverheadNs + saturated_ns(ns);
}

}  // namespace seer::sim
