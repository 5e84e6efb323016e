#include "graph_model.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string>

namespace seer::cudnn {

using backend::Descriptor;
using backend::Snapshot;

namespace {

int64_t product(const std::vector<int64_t>& v, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to && i < v.size(); ++i) p *= v[i];
  return p;
}

std::optional<Tensor> tensor_attr(const Descriptor& op, int name) {
  const Snapshot t = op.descriptor(name);
  return t ? read_tensor(*t) : std::nullopt;
}

std::optional<int32_t> pointwise_mode(const Descriptor& op) {
  if (op.type != CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR) return std::nullopt;
  const Snapshot pw = op.descriptor(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR);
  return pw ? pw->int32(CUDNN_ATTR_POINTWISE_MODE) : std::nullopt;
}

// Every operation of the graph, including those nested in fused operations' subgraphs.
void collect_ops(const Descriptor& d, int depth, std::vector<const Descriptor*>& out) {
  if (depth > 4) return;
  for (const auto& [name, value] : d.attributes) {
    for (const Snapshot& s : value.descriptors) {
      if (s->type == CUDNN_BACKEND_TENSOR_DESCRIPTOR) continue;
      if (s->type != CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR) out.push_back(s.get());
      collect_ops(*s, depth + 1, out);
    }
  }
}

bool is_compare(int32_t mode) {
  return mode == CUDNN_POINTWISE_CMP_GT || mode == CUDNN_POINTWISE_CMP_GE ||
         mode == CUDNN_POINTWISE_CMP_LT || mode == CUDNN_POINTWISE_CMP_LE;
}

// A causal mask: a diagonal band mask operation, or a comparison of a row index with a column
// index (each a GEN_INDEX output, possibly shifted by an ADD/SUB), as cudnn-frontend builds it.
// A padding mask compares an index with a sequence-length tensor and does not count.
bool has_causal_mask(const std::vector<const Descriptor*>& ops) {
  std::map<int64_t, const Descriptor*> producer;  // output tensor uid -> pointwise op
  for (const Descriptor* op : ops) {
    if (op->type == backend::kDiagonalBandMaskDescriptor) return true;
    if (auto y = tensor_attr(*op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC)) producer[y->uid] = op;
  }
  std::function<bool(const std::optional<Tensor>&, int)> is_index =
      [&](const std::optional<Tensor>& t, int depth) {
        if (!t || depth > 3) return false;
        auto it = producer.find(t->uid);
        if (it == producer.end()) return false;
        const std::optional<int32_t> mode = pointwise_mode(*it->second);
        if (mode == CUDNN_POINTWISE_GEN_INDEX) return true;
        if (mode == CUDNN_POINTWISE_ADD || mode == CUDNN_POINTWISE_SUB) {
          return is_index(tensor_attr(*it->second, CUDNN_ATTR_OPERATION_POINTWISE_XDESC),
                          depth + 1) ||
                 is_index(tensor_attr(*it->second, CUDNN_ATTR_OPERATION_POINTWISE_BDESC),
                          depth + 1);
        }
        return false;
      };
  for (const Descriptor* op : ops) {
    const std::optional<int32_t> mode = pointwise_mode(*op);
    if (!mode || !is_compare(*mode)) continue;
    if (is_index(tensor_attr(*op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC), 0) &&
        is_index(tensor_attr(*op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC), 0)) {
      return true;
    }
  }
  return false;
}

bool has_softmax(const std::vector<const Descriptor*>& ops) {
  for (const Descriptor* op : ops) {
    if (op->type == CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR ||
        op->type == backend::kSoftmaxDescriptor || pointwise_mode(*op) == CUDNN_POINTWISE_EXP) {
      return true;
    }
  }
  return false;
}

// The fused SDPA operations of cuDNN 9.x (one node for the whole attention).
std::optional<Attention> fused_attention(const Descriptor& op, bool backward) {
  const int q =
      backward ? CUDNN_ATTR_OPERATION_SDPA_BWD_QDESC : CUDNN_ATTR_OPERATION_SDPA_FWD_QDESC;
  const int k =
      backward ? CUDNN_ATTR_OPERATION_SDPA_BWD_KDESC : CUDNN_ATTR_OPERATION_SDPA_FWD_KDESC;
  const int v =
      backward ? CUDNN_ATTR_OPERATION_SDPA_BWD_VDESC : CUDNN_ATTR_OPERATION_SDPA_FWD_VDESC;
  const std::optional<Tensor> tq = tensor_attr(op, q), tk = tensor_attr(op, k),
                              tv = tensor_attr(op, v);
  if (!tq || !tk || !tv || tq->dims.size() != 4 || tk->dims.size() != 4 || tv->dims.size() != 4) {
    return std::nullopt;
  }
  Attention a;
  a.batch = tq->dims[0];
  a.heads = tq->dims[1];
  a.heads_kv = tk->dims[1];
  a.seq_q = tq->dims[2];
  a.d_qk = tq->dims[3];
  a.seq_kv = tk->dims[2];
  a.d_v = tv->dims[3];
  a.data_type = tq->data_type;
  return a;
}

// Attention written out as operations (matmul, masks, softmax, matmul): the shape comes from the
// score matmul (the one with the smallest inner dimension: Q*K^T, or dO*V^T in backward graphs).
std::optional<Attention> decomposed_attention(const std::vector<const Descriptor*>& matmuls) {
  const Descriptor* score = nullptr;
  int64_t inner = 0;
  for (const Descriptor* mm : matmuls) {
    const std::optional<Tensor> a = tensor_attr(*mm, CUDNN_ATTR_OPERATION_MATMUL_ADESC);
    if (!a || a->dims.size() < 3) continue;
    if (!score || a->dims.back() < inner) {
      score = mm;
      inner = a->dims.back();
    }
  }
  if (!score) return std::nullopt;
  const Tensor a = *tensor_attr(*score, CUDNN_ATTR_OPERATION_MATMUL_ADESC);
  const std::optional<Tensor> b = tensor_attr(*score, CUDNN_ATTR_OPERATION_MATMUL_BDESC);
  if (!b || b->dims.size() != a.dims.size()) return std::nullopt;
  const size_t r = a.dims.size();
  Attention att;
  att.batch = product(a.dims, 0, r - 3);
  att.heads = a.dims[r - 3];
  att.heads_kv = b->dims[r - 3];
  att.seq_q = a.dims[r - 2];
  att.d_qk = a.dims[r - 1];
  att.seq_kv = b->dims[r - 1];
  att.d_v = att.d_qk;
  att.data_type = a.data_type;
  if (matmuls.size() == 2) {  // forward: P*V gives Dv
    for (const Descriptor* mm : matmuls) {
      if (mm == score) continue;
      if (auto v = tensor_attr(*mm, CUDNN_ATTR_OPERATION_MATMUL_BDESC)) att.d_v = v->dims.back();
    }
  }
  return att;
}

std::optional<LibraryOp> matmul_op(const Descriptor& op) {
  const std::optional<Tensor> a = tensor_attr(op, CUDNN_ATTR_OPERATION_MATMUL_ADESC);
  const std::optional<Tensor> b = tensor_attr(op, CUDNN_ATTR_OPERATION_MATMUL_BDESC);
  const std::optional<Tensor> c = tensor_attr(op, CUDNN_ATTR_OPERATION_MATMUL_CDESC);
  if (!a || !b || !c || a->dims.size() < 2 || b->dims.size() < 2 || c->dims.size() < 2) {
    return std::nullopt;
  }
  LibraryOp l;
  l.api = "cudnn matmul";
  l.m = a->dims[a->dims.size() - 2];
  l.k = a->dims.back();
  l.n = b->dims.back();
  l.batch = product(c->dims, 0, c->dims.size() - 2);
  l.dtype = l.compute = dtype_of(a->data_type);
  return l;
}

std::optional<LibraryOp> graph_conv_op(const Descriptor& op) {
  int x = 0, w = 0, y = 0;
  ConvPass pass;
  switch (op.type) {
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR:
      pass = ConvPass::kForward;
      x = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X;
      w = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W;
      y = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y;
      break;
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR:
      pass = ConvPass::kBackwardData;
      x = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX;
      w = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W;
      y = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY;
      break;
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR:
      pass = ConvPass::kBackwardFilter;
      x = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X;
      w = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW;
      y = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY;
      break;
    default:
      return std::nullopt;
  }
  const std::optional<Tensor> tx = tensor_attr(op, x), tw = tensor_attr(op, w),
                              ty = tensor_attr(op, y);
  if (!tx || !tw || !ty) return std::nullopt;
  const int dtype = dtype_of(pass == ConvPass::kBackwardData ? ty->data_type : tx->data_type);
  const int pipe = conv_math_pipe(dtype, true);
  return conv_op(pass, tx->dims, tw->dims, ty->dims, pipe, pipe);
}

const char* memory_op_name(const std::vector<const Descriptor*>& ops) {
  for (const Descriptor* op : ops) {
    switch (op->type) {
      case CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR:
        return "cudnn norm fwd";
      case CUDNN_BACKEND_OPERATION_NORM_BACKWARD_DESCRIPTOR:
        return "cudnn norm bwd";
      case CUDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR:
      case CUDNN_BACKEND_OPERATION_BN_FINALIZE_STATISTICS_DESCRIPTOR:
      case CUDNN_BACKEND_OPERATION_BN_BWD_WEIGHTS_DESCRIPTOR:
        return "cudnn batch norm";
      case CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR:
        return "cudnn reduction";
      case backend::kSoftmaxDescriptor:
        return "cudnn softmax";
      case CUDNN_BACKEND_OPERATION_RESAMPLE_FWD_DESCRIPTOR:
      case CUDNN_BACKEND_OPERATION_RESAMPLE_BWD_DESCRIPTOR:
        return "cudnn resample";
      default:
        break;
    }
  }
  return "cudnn pointwise";
}

// Graphs without GEMM work: one memory-bound kernel moving every non-virtual tensor once.
LibraryOp memory_op(const std::vector<const Descriptor*>& ops) {
  LibraryOp l;
  l.api = memory_op_name(ops);
  l.gemm = false;
  std::set<int64_t> seen;
  bool typed = false;
  for (const Descriptor* op : ops) {
    for (const auto& [name, value] : op->attributes) {
      for (const Snapshot& s : value.descriptors) {
        if (s->type != CUDNN_BACKEND_TENSOR_DESCRIPTOR) continue;
        const std::optional<Tensor> t = read_tensor(*s);
        if (!t || t->is_virtual || !seen.insert(t->uid).second) continue;
        l.bytes += static_cast<double>(t->bytes());
        if (!typed) {
          l.dtype = l.compute = dtype_of(t->data_type);
          typed = true;
        }
      }
    }
  }
  return l;
}

}  // namespace

int64_t Tensor::elements() const { return dims.empty() ? 0 : product(dims, 0, dims.size()); }

std::optional<Tensor> read_tensor(const Descriptor& d) {
  if (d.type != CUDNN_BACKEND_TENSOR_DESCRIPTOR) return std::nullopt;
  Tensor t;
  t.dims = d.int64s(CUDNN_ATTR_TENSOR_DIMENSIONS);
  t.strides = d.int64s(CUDNN_ATTR_TENSOR_STRIDES);
  t.data_type = static_cast<cudnnDataType_t>(d.int32(CUDNN_ATTR_TENSOR_DATA_TYPE).value_or(0));
  t.uid = d.int64(CUDNN_ATTR_TENSOR_UNIQUE_ID).value_or(0);
  t.is_virtual = d.boolean(CUDNN_ATTR_TENSOR_IS_VIRTUAL).value_or(false);
  return t;
}

std::optional<LibraryOp> conv_op(ConvPass pass, const std::vector<int64_t>& x,
                                 const std::vector<int64_t>& w, const std::vector<int64_t>& y,
                                 int dtype, int compute) {
  if (x.size() < 3 || x.size() != w.size() || x.size() != y.size() || w[1] <= 0) {
    return std::nullopt;
  }
  const size_t r = x.size();
  const int64_t n = x[0], c = x[1], k = w[0];
  const int64_t groups = std::max<int64_t>(1, c / w[1]);
  const int64_t in_spatial = product(x, 2, r), out_spatial = product(y, 2, r);
  const int64_t filter = product(w, 2, r);
  LibraryOp l;
  l.batch = groups;
  l.dtype = dtype;
  l.compute = compute;
  switch (pass) {
    case ConvPass::kForward:
      l.api = "cudnn conv fwd";
      l.m = n * out_spatial;
      l.n = k / groups;
      l.k = w[1] * filter;
      break;
    case ConvPass::kBackwardData:
      l.api = "cudnn conv bwd data";
      l.m = n * in_spatial;
      l.n = w[1];
      l.k = (k / groups) * filter;
      break;
    case ConvPass::kBackwardFilter:
      l.api = "cudnn conv bwd filter";
      l.m = k / groups;
      l.n = w[1] * filter;
      l.k = n * out_spatial;
      break;
  }
  return l;
}

double visible_fraction(const Attention& a) {
  if (!a.causal || a.seq_q <= 0 || a.seq_kv <= 0) return 1.0;
  const int64_t shift = a.bottom_right ? a.seq_kv - a.seq_q : 0;
  double kept = 0;
  for (int64_t i = 0; i < a.seq_q; ++i) {
    kept += static_cast<double>(std::clamp<int64_t>(i + shift + 1, 0, a.seq_kv));
  }
  return kept / (static_cast<double>(a.seq_q) * static_cast<double>(a.seq_kv));
}

std::vector<LibraryOp> attention_ops(const Attention& a, bool backward) {
  const int dtype = dtype_of(a.data_type);
  const double e = static_cast<double>(element_bytes(a.data_type));
  const double bh = static_cast<double>(a.batch * a.heads);
  const double bhk = static_cast<double>(a.batch * a.heads_kv);
  const double q = bh * a.seq_q * a.d_qk, o = bh * a.seq_q * a.d_v;
  const double k = bhk * a.seq_kv * a.d_qk, v = bhk * a.seq_kv * a.d_v;
  const double stats = 4.0 * bh * a.seq_q;  // FP32 log-sum-exp per query row
  const char* pass = backward ? "cudnn sdpa bwd" : "cudnn sdpa fwd";

  LibraryOp gemm;
  gemm.api = pass;
  gemm.m = a.seq_q;
  gemm.n = std::max<int64_t>(
      1, static_cast<int64_t>(std::ceil(visible_fraction(a) * static_cast<double>(a.seq_kv))));
  gemm.k = backward ? 3 * a.d_qk + 2 * a.d_v : a.d_qk + a.d_v;
  gemm.batch = a.batch * a.heads;
  gemm.dtype = gemm.compute = dtype;

  LibraryOp memory;
  memory.api = std::string(pass) + " memory";
  memory.gemm = false;
  memory.dtype = memory.compute = dtype;
  if (!backward) {
    memory.bytes = e * (q + k + v + o) + stats;
  } else {
    // Reads Q, K, V, O, dO and the statistics; writes dQ, dK, dV; the row sums of dO*O are
    // written and read once; dQ accumulates in FP32 (written and read back).
    memory.bytes = e * (q + k + v + 2 * o) + e * (q + k + v) + stats + 2 * stats + 2.0 * 4.0 * q;
  }
  return {gemm, memory};
}

int64_t attention_workspace(const Attention& a, bool backward) {
  if (!backward) return 0;
  const int64_t bh = a.batch * a.heads;
  return 4 * bh * a.seq_q * a.d_qk + 4 * bh * a.seq_q;  // FP32 dQ accumulator + row sums
}

PlanModel model_graph(const Descriptor& graph) {
  std::vector<const Descriptor*> ops;
  collect_ops(graph, 0, ops);
  PlanModel model;

  std::vector<const Descriptor*> matmuls;
  for (const Descriptor* op : ops) {
    const bool fwd = op->type == backend::kSdpaFwdDescriptor;
    const bool bwd = op->type == backend::kSdpaBwdDescriptor;
    if (fwd || bwd) {
      if (std::optional<Attention> a = fused_attention(*op, bwd)) {
        a->causal = has_causal_mask(ops);
        for (LibraryOp& l : attention_ops(*a, bwd)) model.ops.push_back(std::move(l));
        model.workspace = std::max(model.workspace, attention_workspace(*a, bwd));
      }
    }
    if (op->type == CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR) matmuls.push_back(op);
  }
  if (!model.ops.empty()) return model;

  if (matmuls.size() >= 2 && has_softmax(ops)) {
    if (std::optional<Attention> a = decomposed_attention(matmuls)) {
      const bool bwd = matmuls.size() > 2;
      a->causal = has_causal_mask(ops);
      model.ops = attention_ops(*a, bwd);
      model.workspace = attention_workspace(*a, bwd);
      return model;
    }
  }

  for (const Descriptor* op : ops) {
    std::optional<LibraryOp> l =
        op->type == CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR ? matmul_op(*op) : graph_conv_op(*op);
    if (l) model.ops.push_back(std::move(*l));
  }
  // GEMM-shaped graphs fuse their pointwise operations into the GEMM's epilogue.
  if (model.ops.empty()) model.ops.push_back(memory_op(ops));
  return model;
}

}  // namespace seer::cudnn
