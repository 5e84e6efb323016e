// Tensor, filter, convolution and activation descriptors of the legacy API.

#include "legacy_descriptors.h"

#include <algorithm>

#include "submit.h"
#include "types.h"

using namespace seer::cudnn;

namespace {

bool known_type(cudnnDataType_t t) {
  return static_cast<int>(t) >= CUDNN_DATA_FLOAT && static_cast<int>(t) <= CUDNN_DATA_UINT4;
}

// Packed strides of `dims` in NCHW (or NHWC: channels innermost) order.
std::vector<int64_t> packed_strides(const std::vector<int64_t>& dims, bool nhwc) {
  const size_t r = dims.size();
  std::vector<int64_t> strides(r, 1);
  if (!nhwc || r < 3) {
    for (size_t i = r - 1; i-- > 0;) strides[i] = strides[i + 1] * dims[i + 1];
    return strides;
  }
  strides[1] = 1;
  int64_t s = dims[1];
  for (size_t i = r - 1; i >= 2; --i) {
    strides[i] = s;
    s *= dims[i];
  }
  strides[0] = s;
  return strides;
}

cudnnStatus_t set_nd(cudnnTensorStruct* t, cudnnDataType_t type, int nb, const int* dims,
                     const int* strides) {
  if (!t || !dims || !strides || nb < 1 || nb > CUDNN_DIM_MAX || !known_type(type)) {
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnSetTensorNdDescriptor: bad argument");
  }
  for (int i = 0; i < nb; ++i) {
    if (dims[i] <= 0 || strides[i] <= 0) {
      return fail(CUDNN_STATUS_BAD_PARAM, "cudnnSetTensorNdDescriptor: dims and strides > 0");
    }
  }
  t->data_type = type;
  t->dims.assign(dims, dims + nb);
  t->strides.assign(strides, strides + nb);
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace

// ---- tensors

SEER_CUDNN_API cudnnStatus_t cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t* d) {
  if (!d) return fail(CUDNN_STATUS_BAD_PARAM, "cudnnCreateTensorDescriptor: null");
  *d = new cudnnTensorStruct();
  return CUDNN_STATUS_SUCCESS;
}

SEER_CUDNN_API cudnnStatus_t cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t d) {
  delete d;
  return CUDNN_STATUS_SUCCESS;
}

SEER_CUDNN_API cudnnStatus_t cudnnSetTensorNdDescriptor(cudnnTensorDescriptor_t d,
                                                        cudnnDataType_t type, int nb,
                                                        const int dims[], const int strides[]) {
  return set_nd(d, type, nb, dims, strides);
}

SEER_CUDNN_API cudnnStatus_t cudnnSetTensorNdDescriptorEx(cudnnTensorDescriptor_t d,
                                                          cudnnTensorFormat_t format,
                                                          cudnnDataType_t type, int nb,
                                                          const int dims[]) {
  if (!dims || nb < 1 || nb > CUDNN_DIM_MAX) {
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnSetTensorNdDescriptorEx: bad argument");
  }
  const std::vector<int64_t> d64(dims, dims + nb);
  if (std::any_of(d64.begin(), d64.end(), [](int64_t v) { return v <= 0; })) {
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnSetTensorNdDescriptorEx: dims > 0");
  }
  const std::vector<int64_t> s64 = packed_strides(d64, format == CUDNN_TENSOR_NHWC);
  const std::vector<int> strides(s64.begin(), s64.end());
  return set_nd(d, type, nb, dims, strides.data());
}

SEER_CUDNN_API cudnnStatus_t cudnnSetTensor4dDescriptorEx(cudnnTensorDescriptor_t d,
                                                          cudnnDataType_t type, int n, int c, int h,
                                                          int w, int ns, int cs, int hs, int ws) {
  const int dims[4] = {n, c, h, w}, strides[4] = {ns, cs, hs, ws};
  return set_nd(d, type, 4, dims, strides);
}

SEER_CUDNN_API cudnnStatus_t cudnnSetTensor4dDescriptor(cudnnTensorDescriptor_t d,
                                                        cudnnTensorFormat_t format,
                                                        cudnnDataType_t type, int n, int c, int h,
                                                        int w) {
  const int dims[4] = {n, c, h, w};
  return cudnnSetTensorNdDescriptorEx(d, format, type, 4, dims);
}

SEER_CUDNN_API cudnnStatus_t cudnnGetTensor4dDescriptor(const cudnnTensorDescriptor_t d,
                                                        cudnnDataType_t* type, int* n, int* c,
                                                        int* h, int* w, int* ns, int* cs, int* hs,
                                                        int* ws) {
  if (!set_tensor(d) || d->dims.size() != 4) {
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnGetTensor4dDescriptor: not a 4-d tensor");
  }
  int* out[9] = {n, c, h, w, ns, cs, hs, ws, nullptr};
  if (type) *type = d->data_type;
  for (int i = 0; i < 4; ++i) {
    if (out[i]) *out[i] = static_cast<int>(d->dims[static_cast<size_t>(i)]);
    if (out[i + 4]) *out[i + 4] = static_cast<int>(d->strides[static_cast<size_t>(i)]);
  }
  return CUDNN_STATUS_SUCCESS;
}

SEER_CUDNN_API cudnnStatus_t cudnnGetTensorNdDescriptor(const cudnnTensorDescriptor_t d,
                                                        int requested, cudnnDataType_t* type,
                                                        int* nb, int dims[], int strides[]) {
  if (!set_tensor(d) || requested < 0) {
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnGetTensorNdDescriptor: bad argument");
  }
  if (type) *type = d->data_type;
  if (nb) *nb = static_cast<int>(d->dims.size());
  const int n = std::min(requested, static_cast<int>(d->dims.size()));
  for (int i = 0; i < n; ++i) {
    if (dims) dims[i] = static_cast<int>(d->dims[static_cast<size_t>(i)]);
    if (strides) strides[i] = static_cast<int>(d->strides[static_cast<size_t>(i)]);
  }
  return CUDNN_STATUS_SUCCESS;
}

// The bytes from the first element to one past the last, as cuDNN computes them.
SEER_CUDNN_API cudnnStatus_t cudnnGetTensorSizeInBytes(const cudnnTensorDescriptor_t d,
                                                       size_t* size) {
  if (!set_tensor(d) || !size) {
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnGetTensorSizeInBytes: bad argument");
  }
  int64_t last = 0;
  for (size_t i = 0; i < d->dims.size(); ++i) last += (d->dims[i] - 1) * d->strides[i];
  *size = static_cast<size_t>((last + 1) * element_bytes(d->data_type));
  return CUDNN_STATUS_SUCCESS;
}

// Batch norm parameters: 1 x C x 1 x 1 (spatial) or 1 x C x H x W (per activation).
SEER_CUDNN_API cudnnStatus_t cudnnDeriveBNTensorDescriptor(cudnnTensorDescriptor_t derived,
                                                           const cudnnTensorDescriptor_t x,
                                                           cudnnBatchNormMode_t mode) {
  if (!derived || !set_tensor(x) || x->dims.size() < 3) {
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnDeriveBNTensorDescriptor: bad argument");
  }
  std::vector<int64_t> dims(x->dims.size(), 1);
  dims[1] = x->dims[1];
  if (mode == CUDNN_BATCHNORM_PER_ACTIVATION) {
    std::copy(x->dims.begin() + 2, x->dims.end(), dims.begin() + 2);
  }
  derived->data_type = x->data_type == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  derived->dims = dims;
  derived->strides = packed_strides(dims, false);
  return CUDNN_STATUS_SUCCESS;
}

// ---- filters

SEER_CUDNN_API cudnnStatus_t cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t* d) {
  if (!d) return fail(CUDNN_STATUS_BAD_PARAM, "cudnnCreateFilterDescriptor: null");
  *d = new cudnnFilterStruct();
  return CUDNN_STATUS_SUCCESS;
}

SEER_CUDNN_API cudnnStatus_t cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t d) {
  delete d;
  return CUDNN_STATUS_SUCCESS;
}

SEER_CUDNN_API cudnnStatus_t cudnnSetFilterNdDescriptor(cudnnFilterDescriptor_t d,
                                                        cudnnDataType_t type,
                                                        cudnnTensorFormat_t format, int nb,
                                                        const int dims[]) {
  if (!d || !dims || nb < 3 || nb > CUDNN_DIM_MAX || !known_type(type)) {
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnSetFilterNdDescriptor: bad argument");
  }
  if (std::any_of(dims, dims + nb, [](int v) { return v <= 0; })) {
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnSetFilterNdDescriptor: dims > 0");
  }
  d->data_type = type;
  d->format = format;
  d->dims.assign(dims, dims + nb);
  return CUDNN_STATUS_SUCCESS;
}

SEER_CUDNN_API cudnnStatus_t cudnnSetFilter4dDescriptor(cudnnFilterDescriptor_t d,
                                                        cudnnDataType_t type,
                                                        cudnnTensorFormat_t format, int k, int c,
                                                        int h, int w) {
  const int dims[4] = {k, c, h, w};
  return cudnnSetFilterNdDescriptor(d, type, format, 4, dims);
}

SEER_CUDNN_API cudnnStatus_t cudnnGetFilterNdDescriptor(const cudnnFilterDescriptor_t d,
                                                        int requested, cudnnDataType_t* type,
                                                        cudnnTensorFormat_t* format, int* nb,
                                                        int dims[]) {
  if (!d || d->dims.empty() || requested < 0) {
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnGetFilterNdDescriptor: bad argument");
  }
  if (type) *type = d->data_type;
  if (format) *format = d->format;
  if (nb) *nb = static_cast<int>(d->dims.size());
  const int n = std::min(requested, static_cast<int>(d->dims.size()));
  for (int i = 0; dims && i < n; ++i) dims[i] = static_cast<int>(d->dims[static_cast<size_t>(i)]);
  return CUDNN_STATUS_SUCCESS;
}

SEER_CUDNN_API cudnnStatus_t cudnnGetFilter4dDescriptor(const cudnnFilterDescriptor_t d,
                                                        cudnnDataType_t* type,
                                                        cudnnTensorFormat_t* format, int* k, int* c,
                                                        int* h, int* w) {
  if (!d || d->dims.size() != 4) {
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnGetFilter4dDescriptor: not a 4-d filter");
  }
  int dims[4];
  cudnnGetFilterNdDescriptor(d, 4, type, format, nullptr, dims);
  if (k) *k = dims[0];
  if (c) *c = dims[1];
  if (h) *h = dims[2];
  if (w) *w = dims[3];
  return CUDNN_STATUS_SUCCESS;
}

SEER_CUDNN_API cudnnStatus_t cudnnGetFilterSizeInBytes(const cudnnFilterDescriptor_t d,
                                                       size_t* size) {
  if (!d || d->dims.empty() || !size) {
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnGetFilterSizeInBytes: bad argument");
  }
  int64_t n = element_bytes(d->data_type);
  for (int64_t v : d->dims) n *= v;
  *size = static_cast<size_t>(n);
  return CUDNN_STATUS_SUCCESS;
}

// ---- convolutions

SEER_CUDNN_API cudnnStatus_t cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t* d) {
  if (!d) return fail(CUDNN_STATUS_BAD_PARAM, "cudnnCreateConvolutionDescriptor: null");
  *d = new cudnnConvolutionStruct();
  return CUDNN_STATUS_SUCCESS;
}

SEER_CUDNN_API cudnnStatus_t cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t d) {
  delete d;
  return CUDNN_STATUS_SUCCESS;
}

SEER_CUDNN_API cudnnStatus_t cudnnSetConvolutionNdDescriptor(cudnnConvolutionDescriptor_t d, int n,
                                                             const int pads[], const int strides[],
                                                             const int dilations[],
                                                             cudnnConvolutionMode_t mode,
                                                             cudnnDataType_t compute_type) {
  if (!d || n < 1 || n > CUDNN_DIM_MAX - 2 || !pads || !strides || !dilations ||
      !known_type(compute_type)) {
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnSetConvolutionNdDescriptor: bad argument");
  }
  for (int i = 0; i < n; ++i) {
    if (pads[i] < 0 || strides[i] <= 0 || dilations[i] <= 0) {
      return fail(CUDNN_STATUS_BAD_PARAM, "cudnnSetConvolutionNdDescriptor: bad geometry");
    }
  }
  d->pads.assign(pads, pads + n);
  d->strides.assign(strides, strides + n);
  d->dilations.assign(dilations, dilations + n);
  d->mode = mode;
  d->compute_type = compute_type;
  return CUDNN_STATUS_SUCCESS;
}

SEER_CUDNN_API cudnnStatus_t cudnnSetConvolution2dDescriptor(cudnnConvolutionDescriptor_t d,
                                                             int pad_h, int pad_w, int u, int v,
                                                             int dilation_h, int dilation_w,
                                                             cudnnConvolutionMode_t mode,
                                                             cudnnDataType_t compute_type) {
  const int pads[2] = {pad_h, pad_w}, strides[2] = {u, v}, dil[2] = {dilation_h, dilation_w};
  return cudnnSetConvolutionNdDescriptor(d, 2, pads, strides, dil, mode, compute_type);
}

SEER_CUDNN_API cudnnStatus_t cudnnGetConvolutionNdDescriptor(const cudnnConvolutionDescriptor_t d,
                                                             int requested, int* n, int pads[],
                                                             int strides[], int dilations[],
                                                             cudnnConvolutionMode_t* mode,
                                                             cudnnDataType_t* compute_type) {
  if (!d || d->pads.empty() || requested < 0) {
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnGetConvolutionNdDescriptor: bad argument");
  }
  if (n) *n = static_cast<int>(d->pads.size());
  const size_t count = std::min(static_cast<size_t>(requested), d->pads.size());
  for (size_t i = 0; i < count; ++i) {
    if (pads) pads[i] = d->pads[i];
    if (strides) strides[i] = d->strides[i];
    if (dilations) dilations[i] = d->dilations[i];
  }
  if (mode) *mode = d->mode;
  if (compute_type) *compute_type = d->compute_type;
  return CUDNN_STATUS_SUCCESS;
}

SEER_CUDNN_API cudnnStatus_t cudnnGetConvolution2dDescriptor(const cudnnConvolutionDescriptor_t d,
                                                             int* pad_h, int* pad_w, int* u, int* v,
                                                             int* dilation_h, int* dilation_w,
                                                             cudnnConvolutionMode_t* mode,
                                                             cudnnDataType_t* compute_type) {
  if (!d || d->pads.size() != 2) {
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnGetConvolution2dDescriptor: not 2-d");
  }
  if (pad_h) *pad_h = d->pads[0];
  if (pad_w) *pad_w = d->pads[1];
  if (u) *u = d->strides[0];
  if (v) *v = d->strides[1];
  if (dilation_h) *dilation_h = d->dilations[0];
  if (dilation_w) *dilation_w = d->dilations[1];
  if (mode) *mode = d->mode;
  if (compute_type) *compute_type = d->compute_type;
  return CUDNN_STATUS_SUCCESS;
}

SEER_CUDNN_API cudnnStatus_t cudnnSetConvolutionGroupCount(cudnnConvolutionDescriptor_t d,
                                                           int groups) {
  if (!d || groups < 1) return fail(CUDNN_STATUS_BAD_PARAM, "cudnnSetConvolutionGroupCount");
  d->groups = groups;
  return CUDNN_STATUS_SUCCESS;
}

SEER_CUDNN_API cudnnStatus_t cudnnGetConvolutionGroupCount(cudnnConvolutionDescriptor_t d,
                                                           int* groups) {
  if (!d || !groups) return fail(CUDNN_STATUS_BAD_PARAM, "cudnnGetConvolutionGroupCount");
  *groups = d->groups;
  return CUDNN_STATUS_SUCCESS;
}

SEER_CUDNN_API cudnnStatus_t cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t d,
                                                         cudnnMathType_t math) {
  if (!d || static_cast<int>(math) < 0 || math > CUDNN_FMA_MATH) {
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnSetConvolutionMathType");
  }
  d->math = math;
  return CUDNN_STATUS_SUCCESS;
}

SEER_CUDNN_API cudnnStatus_t cudnnGetConvolutionMathType(cudnnConvolutionDescriptor_t d,
                                                         cudnnMathType_t* math) {
  if (!d || !math) return fail(CUDNN_STATUS_BAD_PARAM, "cudnnGetConvolutionMathType");
  *math = d->math;
  return CUDNN_STATUS_SUCCESS;
}

SEER_CUDNN_API cudnnStatus_t cudnnSetConvolutionReorderType(cudnnConvolutionDescriptor_t d,
                                                            cudnnReorderType_t reorder) {
  if (!d) return fail(CUDNN_STATUS_BAD_PARAM, "cudnnSetConvolutionReorderType");
  d->reorder = reorder;
  return CUDNN_STATUS_SUCCESS;
}

SEER_CUDNN_API cudnnStatus_t cudnnGetConvolutionReorderType(cudnnConvolutionDescriptor_t d,
                                                            cudnnReorderType_t* reorder) {
  if (!d || !reorder) return fail(CUDNN_STATUS_BAD_PARAM, "cudnnGetConvolutionReorderType");
  *reorder = d->reorder;
  return CUDNN_STATUS_SUCCESS;
}

// out = (in + 2 pad - dilation (filter - 1) - 1) / stride + 1 per spatial dimension.
SEER_CUDNN_API cudnnStatus_t cudnnGetConvolutionNdForwardOutputDim(
    const cudnnConvolutionDescriptor_t conv, const cudnnTensorDescriptor_t x,
    const cudnnFilterDescriptor_t w, int nb, int out[]) {
  if (!conv || !set_tensor(x) || !w || !out || nb != static_cast<int>(x->dims.size()) ||
      w->dims.size() != x->dims.size() || conv->pads.size() + 2 != x->dims.size()) {
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnGetConvolutionNdForwardOutputDim: bad argument");
  }
  out[0] = static_cast<int>(x->dims[0]);
  out[1] = static_cast<int>(w->dims[0]);
  for (size_t i = 0; i < conv->pads.size(); ++i) {
    const int64_t span = static_cast<int64_t>(conv->dilations[i]) * (w->dims[i + 2] - 1) + 1;
    const int64_t o = (x->dims[i + 2] + 2 * conv->pads[i] - span) / conv->strides[i] + 1;
    if (o <= 0) return fail(CUDNN_STATUS_BAD_PARAM, "convolution output would be empty");
    out[i + 2] = static_cast<int>(o);
  }
  return CUDNN_STATUS_SUCCESS;
}

SEER_CUDNN_API cudnnStatus_t cudnnGetConvolution2dForwardOutputDim(
    const cudnnConvolutionDescriptor_t conv, const cudnnTensorDescriptor_t x,
    const cudnnFilterDescriptor_t w, int* n, int* c, int* h, int* wo) {
  int out[4];
  const cudnnStatus_t s = cudnnGetConvolutionNdForwardOutputDim(conv, x, w, 4, out);
  if (s != CUDNN_STATUS_SUCCESS) return s;
  if (n) *n = out[0];
  if (c) *c = out[1];
  if (h) *h = out[2];
  if (wo) *wo = out[3];
  return CUDNN_STATUS_SUCCESS;
}

// ---- activations

SEER_CUDNN_API cudnnStatus_t cudnnCreateActivationDescriptor(cudnnActivationDescriptor_t* d) {
  if (!d) return fail(CUDNN_STATUS_BAD_PARAM, "cudnnCreateActivationDescriptor: null");
  *d = new cudnnActivationStruct();
  return CUDNN_STATUS_SUCCESS;
}

SEER_CUDNN_API cudnnStatus_t cudnnDestroyActivationDescriptor(cudnnActivationDescriptor_t d) {
  delete d;
  return CUDNN_STATUS_SUCCESS;
}

SEER_CUDNN_API cudnnStatus_t cudnnSetActivationDescriptor(cudnnActivationDescriptor_t d,
                                                          cudnnActivationMode_t mode,
                                                          cudnnNanPropagation_t nan, double coef) {
  if (!d) return fail(CUDNN_STATUS_BAD_PARAM, "cudnnSetActivationDescriptor: null");
  d->mode = mode;
  d->nan = nan;
  d->coef = coef;
  return CUDNN_STATUS_SUCCESS;
}

SEER_CUDNN_API cudnnStatus_t cudnnGetActivationDescriptor(const cudnnActivationDescriptor_t d,
                                                          cudnnActivationMode_t* mode,
                                                          cudnnNanPropagation_t* nan,
                                                          double* coef) {
  if (!d) return fail(CUDNN_STATUS_BAD_PARAM, "cudnnGetActivationDescriptor: null");
  if (mode) *mode = d->mode;
  if (nan) *nan = d->nan;
  if (coef) *coef = d->coef;
  return CUDNN_STATUS_SUCCESS;
}

SEER_CUDNN_API cudnnStatus_t cudnnSetActivationDescriptorSwishBeta(cudnnActivationDescriptor_t d,
                                                                   double beta) {
  if (!d) return fail(CUDNN_STATUS_BAD_PARAM, "cudnnSetActivationDescriptorSwishBeta: null");
  d->swish_beta = beta;
  return CUDNN_STATUS_SUCCESS;
}

SEER_CUDNN_API cudnnStatus_t cudnnGetActivationDescriptorSwishBeta(cudnnActivationDescriptor_t d,
                                                                   double* beta) {
  if (!d || !beta) return fail(CUDNN_STATUS_BAD_PARAM, "cudnnGetActivationDescriptorSwishBeta");
  *beta = d->swish_beta;
  return CUDNN_STATUS_SUCCESS;
}
