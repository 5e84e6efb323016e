// Attention families: PyTorch's in-tree FlashAttention-2 (pytorch_flash::) and memory-efficient
// attention (CUTLASS fmha_cutlass*). ATEN_KERNELS.md, "Attention".

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "aten_names.h"
#include "seer/simcore/aten_kernels.h"

namespace seer::sim {
namespace {

using aten_names::kMaxHeadDim;
using aten_names::kMaxThreadsPerBlock;
using aten_names::split_args;
using aten_names::template_args;
using aten_names::template_int;

// The integer template arguments of a traits class: "Flash_fwd_kernel_traits<128, 128, 64, ...".
std::vector<long> traits_ints(const std::string& traits) {
  std::vector<long> out;
  const size_t open = traits.find('<');
  if (open == std::string::npos) return out;
  for (const std::string& a : split_args(traits.substr(open + 1, traits.rfind('>') - open - 1))) {
    out.push_back(template_int(a));
  }
  return out;
}

// Upstream FlashAttention-2 on an H100 SXM5, bf16, TFLOP/s at s = 512, 1k, 2k, 4k, 8k, 16k
// (FlashAttention-3 paper, arXiv 2407.08608, Figs. 5-6; framework-kernels.md §3.2).
constexpr std::array<double, 6> kFwd128 = {309, 350, 362, 368, 370, 370};
constexpr std::array<double, 6> kFwd128Causal = {191, 260, 298, 319, 333, 335};
constexpr std::array<double, 6> kFwd64 = {282, 306, 318, 321, 322, 324};
constexpr std::array<double, 6> kBwd128 = {214, 260, 291, 310, 318, 322};
constexpr std::array<double, 6> kBwd64 = {198, 238, 264, 264, 264, 264};  // measured to 2k
constexpr double kH100Bf16Flops = 989.4e12;                               // the table's GPU
constexpr double kAmpereFwdFraction = 0.6;  // FA2: 50-73 % of an A100's peak (arXiv 2307.08691)
constexpr double kAmpereBwdFraction = 0.5;

// Linear in log2(s) between the table's points, flat outside.
double at_seqlen(const std::array<double, 6>& t, double s) {
  const double x = std::clamp(std::log2(std::max(s, 1.0)) - 9.0, 0.0, 5.0);
  const size_t i = std::min<size_t>(static_cast<size_t>(x), 4);
  return t[i] + (t[i + 1] - t[i]) * (x - static_cast<double>(i));
}

// Upstream FA2's TFLOP/s on an H100 for this shape; causal rows other than the forward hd128
// one are scaled by that row's causal/non-causal ratio.
double upstream_tflops(const AttentionShape& s, bool backward) {
  const bool small = s.head_dim <= 64;
  double r = backward ? at_seqlen(small ? kBwd64 : kBwd128, s.seqlen_k)
                      : at_seqlen(small ? kFwd64 : kFwd128, s.seqlen_k);
  if (s.causal) r *= at_seqlen(kFwd128Causal, s.seqlen_k) / at_seqlen(kFwd128, s.seqlen_k);
  return r;
}

bool starts_flash(const std::string& name, const char* kernel) {
  return name.find(std::string("pytorch_flash::") + kernel + "<") != std::string::npos;
}

AtenKernel classify_flash(const std::string& name) {
  AtenKernel k;
  const std::vector<std::string> a = split_args(template_args(name));
  if (a.empty()) return k;
  size_t traits = 0;  // the template argument holding the kernel traits
  int tile_at = 1;    // kBlockM
  if (starts_flash(name, "flash_fwd_kernel")) {
    k.family = AtenFamily::kFlashForward;
    k.causal = a.size() > 2 && aten_names::template_true(a[2]);
  } else if (starts_flash(name, "flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel")) {
    k.family = AtenFamily::kFlashBackward;
    k.causal = a.size() > 2 && aten_names::template_true(a[2]);
    tile_at = 2;  // kBlockN: the grid walks the keys
  } else if (starts_flash(name, "flash_bwd_dot_do_o_kernel")) {
    if (a.size() < 2) return k;
    k.family = AtenFamily::kFlashBackwardPrep;
    traits = 1;
    // Clear_dQaccum: the fp32 dQ accumulator is zeroed too.
    k.causal = aten_names::template_true(a[0]);
  } else if (starts_flash(name, "flash_bwd_convert_dq_kernel")) {
    k.family = AtenFamily::kFlashBackwardConvert;
  } else {
    return k;
  }
  const std::vector<long> t = traits_ints(a[traits]);
  if (t.size() < 3 || t[0] <= 0 || t[0] > kMaxHeadDim || t[static_cast<size_t>(tile_at)] <= 0 ||
      t[static_cast<size_t>(tile_at)] > kMaxThreadsPerBlock) {
    return AtenKernel{};
  }
  k.head_dim = static_cast<int>(t[0]);
  k.tile = static_cast<int>(t[static_cast<size_t>(tile_at)]);
  k.element_bytes = aten_names::first_element_bytes(a[traits]);
  if (k.element_bytes == 0) k.element_bytes = 2;
  k.needs_sizes = false;
  return k;
}

// fmha_cutlassF_<t>_..._sm80(AttentionKernel<scalar, arch, aligned, kQueriesPerBlock,
// kKeysPerBlock, kMaxK, ...>::Params) and fmha_cutlassB_...(AttentionBackwardKernel<arch,
// scalar, aligned, dropout, preload, kBlockSizeI, kBlockSizeJ, kMaxK, ...>::Params).
AtenKernel classify_mem_eff(const std::string& name) {
  AtenKernel k;
  const bool forward = name.rfind("fmha_cutlassF_", 0) == 0;
  const std::string head = forward ? "AttentionKernel<" : "AttentionBackwardKernel<";
  const size_t open = name.find(head);
  const size_t close = name.find(">::Params", open);
  if (open == std::string::npos || close == std::string::npos) return k;
  const size_t from = open + head.size();
  const std::vector<std::string> a = split_args(name.substr(from, close - from));
  if (a.size() < 8) return k;
  const size_t scalar = forward ? 0 : 1;
  const long tile = template_int(forward ? a[3] : a[6]);
  const long max_k = template_int(forward ? a[5] : a[7]);
  if (tile <= 0 || max_k <= 0 || tile > kMaxThreadsPerBlock || max_k > kMaxHeadDim) return k;
  k.family = forward ? AtenFamily::kMemEffForward : AtenFamily::kMemEffBackward;
  k.tile = static_cast<int>(tile);
  k.head_dim = static_cast<int>(max_k);
  k.element_bytes = aten_names::first_element_bytes(a[scalar]);
  if (k.element_bytes == 0) k.element_bytes = 4;
  k.needs_sizes = !forward;  // the backward's grid.x is a split count, not a size
  return k;
}

double ceil_div(double a, double b) { return std::ceil(a / b); }

std::optional<AttentionShape> flash_shape(const AtenKernel& k, const LaunchGeometry& g,
                                          const uint64_t* s, int n) {
  AttentionShape shape;
  shape.batch = g.gy;
  shape.heads = g.gz;
  shape.head_dim = k.head_dim;
  shape.causal = k.family != AtenFamily::kFlashBackwardPrep && k.causal;
  const bool by_keys = k.family == AtenFamily::kFlashBackward;
  // Flash_fwd_params (Flash_bwd_params extends it): h@96, b@176, seqlen_q@180, seqlen_k@184.
  if (n >= 4 && s[0] == g.gz && s[1] == g.gy && s[2] > 0 && s[3] > 0 &&
      ceil_div(static_cast<double>(by_keys ? s[3] : s[2]), k.tile) == g.gx) {
    shape.seqlen_q = static_cast<double>(s[2]);
    shape.seqlen_k = static_cast<double>(s[3]);
    return shape;
  }
  shape.seqlen_q = shape.seqlen_k = static_cast<double>(g.gx) * k.tile;
  return shape;
}

std::optional<AttentionShape> mem_eff_shape(const AtenKernel& k, const LaunchGeometry& g,
                                            const uint64_t* s, int n) {
  // Params: head_dim, num_queries, num_keys, custom_mask_type (kernel_forward.h:
  // @96/104/108/116; kernel_backward.h: @144/152/156/168). grid = (.., heads, batches).
  AttentionShape shape;
  shape.heads = g.gy;
  shape.batch = g.gz;
  const bool forward = k.family == AtenFamily::kMemEffForward;
  const bool read = n >= 4 && s[0] > 0 && s[0] <= static_cast<uint64_t>(k.head_dim) && s[1] > 0 &&
                    s[2] > 0 && s[3] <= 2 &&
                    (!forward || ceil_div(static_cast<double>(s[1]), k.tile) == g.gx);
  if (read) {
    shape.head_dim = static_cast<double>(s[0]);
    shape.seqlen_q = static_cast<double>(s[1]);
    shape.seqlen_k = static_cast<double>(s[2]);
    shape.causal = s[3] != 0;
    return shape;
  }
  if (!forward) return std::nullopt;
  shape.head_dim = k.head_dim;
  shape.seqlen_q = shape.seqlen_k = static_cast<double>(g.gx) * k.tile;
  return shape;
}

}  // namespace

AtenKernel classify_attention_kernel(const std::string& name) {
  if (name.find("pytorch_flash::flash_") != std::string::npos) return classify_flash(name);
  if (name.rfind("fmha_cutlass", 0) == 0) return classify_mem_eff(name);
  return AtenKernel{};
}

std::optional<AttentionShape> attention_shape(const AtenKernel& k, const LaunchGeometry& g,
                                              const uint64_t* sizes, int nsizes) {
  switch (k.family) {
    case AtenFamily::kFlashForward:
    case AtenFamily::kFlashBackward:
    case AtenFamily::kFlashBackwardPrep:
    case AtenFamily::kFlashBackwardConvert:
      return flash_shape(k, g, sizes, nsizes);
    case AtenFamily::kMemEffForward:
    case AtenFamily::kMemEffBackward:
      return mem_eff_shape(k, g, sizes, nsizes);
    default:
      return std::nullopt;
  }
}

double attention_flops(const AttentionShape& s, bool backward) {
  double f = 4 * s.batch * s.heads * s.seqlen_q * s.seqlen_k * s.head_dim;
  if (s.causal) f /= 2;
  return backward ? 2.5 * f : f;
}

double flash_flops_per_s(const GpuSpec& gpu, const AttentionShape& s, bool backward) {
  const double peak = gpu.bf16_dense_flops > 0 ? gpu.bf16_dense_flops : gpu.fp16_dense_flops;
  if (gpu.cc_major >= 9) {
    return upstream_tflops(s, backward) * 1e12 * kInTreeFlashFactor * peak / kH100Bf16Flops;
  }
  // Ampere and Ada: FA2's fraction of peak, with the H100 curve's fall-off at short sequences.
  AttentionShape longest = s;
  longest.seqlen_k = 16384;
  const double shape = upstream_tflops(s, backward) / upstream_tflops(longest, backward);
  return (backward ? kAmpereBwdFraction : kAmpereFwdFraction) * peak * shape;
}

std::optional<Time> attention_kernel_time(const GpuSpec& gpu, const AtenKernel& k,
                                          const LaunchGeometry& g, const uint64_t* sizes,
                                          int nsizes) {
  const std::optional<AttentionShape> s = attention_shape(k, g, sizes, nsizes);
  if (!s) return std::nullopt;
  const double rows = s->batch * s->heads * s->seqlen_q;
  switch (k.family) {
    case AtenFamily::kFlashBackwardPrep: {
      // Reads dO and O, writes the row sums (fp32); zeroes the fp32 dQ accumulator if asked.
      const double per_value = 2.0 * k.element_bytes + (k.causal ? 4 : 0);
      return aten_kernel_ns(gpu, k, rows * s->head_dim * per_value + rows * 4);
    }
    case AtenFamily::kFlashBackwardConvert:
      // Reads the fp32 dQ accumulator, writes dQ.
      return aten_kernel_ns(gpu, k, rows * s->head_dim * (4.0 + k.element_bytes));
    default:
      break;
  }
  const bool backward =
      k.family == AtenFamily::kFlashBackward || k.family == AtenFamily::kMemEffBackward;
  double rate = flash_flops_per_s(gpu, *s, backward);
  if (k.family == AtenFamily::kMemEffForward || k.family == AtenFamily::kMemEffBackward) {
    rate *= kMemEffFactor;
  }
  if (rate <= 0) return std::nullopt;
  return kAtenKernelOverheadNs + saturated_ns(attention_flops(*s, backward) / rate * 1e9);
}

}  // namespace seer::sim
