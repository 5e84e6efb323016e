// cuBLASLt: handles, matmul descriptors, matrix layouts, preferences, algorithms and their
// heuristics, and cublasLtMatmul, which becomes one timed op on its stream (the GEMM model
// times it; the epilogue is named in the op's label, "cublasLtMatmul+bias [bf16]").
//
// Descriptors live in the semi-opaque storage the header gives them (programs may place them
// themselves with cublasLt*Init), so their state is a plain struct copied in and out of it.

#include <cublasLt.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_set>

#include "common.h"

struct cublasLtContext {
  int device = 0;
};

using namespace seer::cublas;

namespace {

constexpr uint32_t kLayoutMagic = 0x5ee71a70;
constexpr uint32_t kDescMagic = 0x5ee7de5c;
constexpr uint32_t kPrefMagic = 0x5ee7b4ef;
constexpr int32_t kAlgoId = 1;  // the one algorithm Seer offers

struct LayoutState {
  uint32_t magic = kLayoutMagic;
  uint32_t type = CUDA_R_32F;
  int32_t order = CUBLASLT_ORDER_COL;
  int32_t batch_count = 1;
  uint64_t rows = 0;
  uint64_t cols = 0;
  int64_t ld = 0;
  int64_t batch_stride = 0;
  int64_t plane_offset = 0;
  uint32_t batch_mode = CUBLASLT_BATCH_MODE_STRIDED;
};
static_assert(sizeof(LayoutState) <= sizeof(cublasLtMatrixLayoutOpaque_t));

struct DescState {
  uint32_t magic = kDescMagic;
  int32_t compute_type = CUBLAS_COMPUTE_32F;
  int32_t scale_type = CUDA_R_32F;
  int32_t pointer_mode = CUBLASLT_POINTER_MODE_HOST;
  int32_t transa = CUBLAS_OP_N;
  int32_t transb = CUBLAS_OP_N;
  int32_t transc = CUBLAS_OP_N;
  int32_t fill_mode = CUBLAS_FILL_MODE_FULL;
  uint32_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  int32_t sm_count_target = 0;
  int32_t aux_data_type = -1;
  int32_t bias_data_type = -1;
  int32_t a_scale_mode = 0;
  int32_t b_scale_mode = 0;
  int32_t c_scale_mode = 0;
  int32_t d_scale_mode = 0;
  int32_t aux_scale_mode = 0;
  int32_t d_out_scale_mode = 0;
  int8_t fast_accum = 0;
  const void* bias = nullptr;
  int64_t bias_batch_stride = 0;
  void* aux = nullptr;
  int64_t aux_ld = 0;
  int64_t aux_batch_stride = 0;
  int64_t alpha_vector_batch_stride = 0;
  const void* a_scale = nullptr;
  const void* b_scale = nullptr;
  const void* c_scale = nullptr;
  const void* d_scale = nullptr;
  void* amax_d = nullptr;
  void* aux_scale = nullptr;
  void* aux_amax = nullptr;
  void* d_out_scale = nullptr;
  void* emulation_desc = nullptr;
};
static_assert(sizeof(DescState) <= sizeof(cublasLtMatmulDescOpaque_t));

struct PrefState {
  uint32_t magic = kPrefMagic;
  uint32_t search_mode = CUBLASLT_SEARCH_BEST_FIT;
  uint32_t reduction_mask = CUBLASLT_REDUCTION_SCHEME_MASK;
  uint32_t align_a = 256, align_b = 256, align_c = 256, align_d = 256;
  float max_waves = 0;
  uint64_t max_workspace = 0;
  uint64_t impl_mask = ~uint64_t{0};
};
static_assert(sizeof(PrefState) <= sizeof(cublasLtMatmulPreferenceOpaque_t));

struct AlgoState {
  int32_t id = kAlgoId;
  uint32_t tile = 0;
  int32_t splitk = 1;
  uint32_t reduction = CUBLASLT_REDUCTION_SCHEME_NONE;
  uint32_t swizzle = 0;
  uint32_t custom = 0;
  uint32_t stages = 0;
  uint16_t inner_shape = 0;
  uint16_t cluster_shape = 0;
};
static_assert(sizeof(AlgoState) <= sizeof(cublasLtMatmulAlgo_t));

// Attribute -> where its value lives in a state struct.
struct Field {
  int attr;
  size_t offset;
  size_t size;
};
#define SEER_FIELD(S, ATTR, MEMBER) \
  Field { ATTR, offsetof(S, MEMBER), sizeof(S::MEMBER) }

constexpr Field kLayoutFields[] = {
    SEER_FIELD(LayoutState, CUBLASLT_MATRIX_LAYOUT_TYPE, type),
    SEER_FIELD(LayoutState, CUBLASLT_MATRIX_LAYOUT_ORDER, order),
    SEER_FIELD(LayoutState, CUBLASLT_MATRIX_LAYOUT_ROWS, rows),
    SEER_FIELD(LayoutState, CUBLASLT_MATRIX_LAYOUT_COLS, cols),
    SEER_FIELD(LayoutState, CUBLASLT_MATRIX_LAYOUT_LD, ld),
    SEER_FIELD(LayoutState, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, batch_count),
    SEER_FIELD(LayoutState, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, batch_stride),
    SEER_FIELD(LayoutState, CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET, plane_offset),
    SEER_FIELD(LayoutState, CUBLASLT_MATRIX_LAYOUT_BATCH_MODE, batch_mode),
};

constexpr Field kDescFields[] = {
    SEER_FIELD(DescState, CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, compute_type),
    SEER_FIELD(DescState, CUBLASLT_MATMUL_DESC_SCALE_TYPE, scale_type),
    SEER_FIELD(DescState, CUBLASLT_MATMUL_DESC_POINTER_MODE, pointer_mode),
    SEER_FIELD(DescState, CUBLASLT_MATMUL_DESC_TRANSA, transa),
    SEER_FIELD(DescState, CUBLASLT_MATMUL_DESC_TRANSB, transb),
    SEER_FIELD(DescState, CUBLASLT_MATMUL_DESC_TRANSC, transc),
    SEER_FIELD(DescState, CUBLASLT_MATMUL_DESC_FILL_MODE, fill_mode),
    SEER_FIELD(DescState, CUBLASLT_MATMUL_DESC_EPILOGUE, epilogue),
    SEER_FIELD(DescState, CUBLASLT_MATMUL_DESC_BIAS_POINTER, bias),
    SEER_FIELD(DescState, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, bias_batch_stride),
    SEER_FIELD(DescState, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, aux),
    SEER_FIELD(DescState, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, aux_ld),
    SEER_FIELD(DescState, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE, aux_batch_stride),
    SEER_FIELD(DescState, CUBLASLT_MATMUL_DESC_ALPHA_VECTOR_BATCH_STRIDE,
               alpha_vector_batch_stride),
    SEER_FIELD(DescState, CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET, sm_count_target),
    SEER_FIELD(DescState, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, a_scale),
    SEER_FIELD(DescState, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, b_scale),
    SEER_FIELD(DescState, CUBLASLT_MATMUL_DESC_C_SCALE_POINTER, c_scale),
    SEER_FIELD(DescState, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, d_scale),
    SEER_FIELD(DescState, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, amax_d),
    SEER_FIELD(DescState, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE, aux_data_type),
    SEER_FIELD(DescState, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_POINTER, aux_scale),
    SEER_FIELD(DescState, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_AMAX_POINTER, aux_amax),
    SEER_FIELD(DescState, CUBLASLT_MATMUL_DESC_FAST_ACCUM, fast_accum),
    SEER_FIELD(DescState, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, bias_data_type),
    SEER_FIELD(DescState, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, a_scale_mode),
    SEER_FIELD(DescState, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, b_scale_mode),
    SEER_FIELD(DescState, CUBLASLT_MATMUL_DESC_C_SCALE_MODE, c_scale_mode),
    SEER_FIELD(DescState, CUBLASLT_MATMUL_DESC_D_SCALE_MODE, d_scale_mode),
    SEER_FIELD(DescState, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_MODE, aux_scale_mode),
    SEER_FIELD(DescState, CUBLASLT_MATMUL_DESC_D_OUT_SCALE_POINTER, d_out_scale),
    SEER_FIELD(DescState, CUBLASLT_MATMUL_DESC_D_OUT_SCALE_MODE, d_out_scale_mode),
    SEER_FIELD(DescState, CUBLASLT_MATMUL_DESC_EMULATION_DESCRIPTOR, emulation_desc),
};

constexpr Field kPrefFields[] = {
    SEER_FIELD(PrefState, CUBLASLT_MATMUL_PREF_SEARCH_MODE, search_mode),
    SEER_FIELD(PrefState, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, max_workspace),
    SEER_FIELD(PrefState, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, reduction_mask),
    SEER_FIELD(PrefState, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, align_a),
    SEER_FIELD(PrefState, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, align_b),
    SEER_FIELD(PrefState, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, align_c),
    SEER_FIELD(PrefState, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, align_d),
    SEER_FIELD(PrefState, CUBLASLT_MATMUL_PREF_MAX_WAVES_COUNT, max_waves),
    SEER_FIELD(PrefState, CUBLASLT_MATMUL_PREF_IMPL_MASK, impl_mask),
};

constexpr Field kAlgoFields[] = {
    SEER_FIELD(AlgoState, CUBLASLT_ALGO_CONFIG_ID, id),
    SEER_FIELD(AlgoState, CUBLASLT_ALGO_CONFIG_TILE_ID, tile),
    SEER_FIELD(AlgoState, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, splitk),
    SEER_FIELD(AlgoState, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, reduction),
    SEER_FIELD(AlgoState, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, swizzle),
    SEER_FIELD(AlgoState, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, custom),
    SEER_FIELD(AlgoState, CUBLASLT_ALGO_CONFIG_STAGES_ID, stages),
    SEER_FIELD(AlgoState, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, inner_shape),
    SEER_FIELD(AlgoState, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, cluster_shape),
};

template <size_t N>
const Field* find(const Field (&table)[N], int attr) {
  for (const Field& f : table) {
    if (f.attr == attr) return &f;
  }
  return nullptr;
}

// The library's rules: a set needs a buffer of exactly the attribute's size; a get with size 0
// reports the size needed; otherwise the buffer must hold the value.
template <size_t N>
cublasStatus_t set_attr(void* storage, const Field (&table)[N], int attr, const void* buf,
                        size_t size) {
  const Field* f = find(table, attr);
  if (!storage || !f || !buf || size != f->size) return CUBLAS_STATUS_INVALID_VALUE;
  std::memcpy(static_cast<char*>(storage) + f->offset, buf, size);
  return CUBLAS_STATUS_SUCCESS;
}

template <size_t N>
cublasStatus_t get_attr(const void* storage, const Field (&table)[N], int attr, void* buf,
                        size_t size, size_t* written) {
  const Field* f = find(table, attr);
  if (!storage || !f) return CUBLAS_STATUS_INVALID_VALUE;
  if (size == 0) {
    if (!written) return CUBLAS_STATUS_INVALID_VALUE;
    *written = f->size;
    return CUBLAS_STATUS_SUCCESS;
  }
  if (!buf || size < f->size) return CUBLAS_STATUS_INVALID_VALUE;
  std::memcpy(buf, static_cast<const char*>(storage) + f->offset, f->size);
  if (written) *written = f->size;
  return CUBLAS_STATUS_SUCCESS;
}

template <class S>
bool load(const void* storage, uint32_t magic, S* out) {
  if (!storage) return false;
  std::memcpy(out, storage, sizeof *out);
  return out->magic == magic;
}

template <class S>
void store(void* storage, const S& s) {
  std::memcpy(storage, &s, sizeof s);
}

std::mutex g_mu;
std::unordered_set<const cublasLtContext*>& handles() {
  static auto* s = new std::unordered_set<const cublasLtContext*>();
  return *s;
}
size_t g_cache_capacity = 8192;

bool valid_op(int32_t t) { return t == CUBLAS_OP_N || t == CUBLAS_OP_T || t == CUBLAS_OP_C; }

// A layout's leading dimension must cover its rows (column order) or columns (row order); the
// tiled IMMA orders are not checked.
bool ld_ok(const LayoutState& l) {
  const auto at_least = [&](uint64_t v) { return l.ld >= static_cast<int64_t>(v ? v : 1); };
  if (l.order == CUBLASLT_ORDER_COL) return at_least(l.rows);
  if (l.order == CUBLASLT_ORDER_ROW) return at_least(l.cols);
  return true;
}

// What a matmul computes: D (m x n) = op(A) (m x k) * op(B) (k x n), `batch` times.
struct Problem {
  int64_t m = 0, n = 0, k = 0, batch = 1;
  int dtype = kF32;
  int compute = kF32;
  int c_bytes = 4;
  uint32_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
};

cublasStatus_t problem(cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t a_desc,
                       cublasLtMatrixLayout_t b_desc, cublasLtMatrixLayout_t c_desc,
                       cublasLtMatrixLayout_t d_desc, Problem* p) {
  DescState d;
  LayoutState a, b, c, dd;
  if (!load(desc, kDescMagic, &d) || !load(a_desc, kLayoutMagic, &a) ||
      !load(b_desc, kLayoutMagic, &b) || !load(d_desc, kLayoutMagic, &dd)) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  if (!c_desc) {
    c = dd;
  } else if (!load(c_desc, kLayoutMagic, &c)) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  if (!valid_op(d.transa) || !valid_op(d.transb) || d.transc != CUBLAS_OP_N) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  cublasComputeType_t compute;
  const TypeInfo at = type_info(static_cast<cudaDataType>(a.type));
  const TypeInfo ct = type_info(static_cast<cudaDataType>(c.type));
  if (!normalize_compute(d.compute_type, &compute) || !at.valid ||
      !type_info(static_cast<cudaDataType>(b.type)).valid || !ct.valid ||
      !type_info(static_cast<cudaDataType>(dd.type)).valid || !epilogue_name(d.epilogue)) {
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  const auto m = static_cast<int64_t>(dd.rows), n = static_cast<int64_t>(dd.cols);
  const bool a_n = d.transa == CUBLAS_OP_N, b_n = d.transb == CUBLAS_OP_N;
  const auto k = static_cast<int64_t>(a_n ? a.cols : a.rows);
  if (m < 0 || n < 0 || k < 0 || static_cast<int64_t>(a_n ? a.rows : a.cols) != m ||
      static_cast<int64_t>(b_n ? b.rows : b.cols) != k ||
      static_cast<int64_t>(b_n ? b.cols : b.rows) != n || c.rows != dd.rows || c.cols != dd.cols) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  if (!ld_ok(a) || !ld_ok(b) || !ld_ok(c) || !ld_ok(dd)) return CUBLAS_STATUS_INVALID_VALUE;
  const int32_t batch = dd.batch_count;
  const auto batch_ok = [&](int32_t count) { return count == batch || count == 1; };
  if (batch < 0 || !batch_ok(a.batch_count) || !batch_ok(b.batch_count) ||
      !batch_ok(c.batch_count)) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  p->m = m;
  p->n = n;
  p->k = at.complex ? 4 * k : k;
  p->batch = batch;
  p->dtype = element_dtype(static_cast<cudaDataType>(a.type), compute, false);
  p->compute = math_pipe(static_cast<cudaDataType>(a.type), compute, false);
  p->c_bytes = ct.bytes;
  p->epilogue = d.epilogue;
  return CUBLAS_STATUS_SUCCESS;
}

// Device utilization of the chosen algorithm: output tiles of 128 x 256 over the SMs.
float waves(const Problem& p) {
  const int64_t tiles = ((p.m + 127) / 128) * ((p.n + 255) / 256) * std::max<int64_t>(1, p.batch);
  return static_cast<float>(static_cast<double>(tiles) / current_sm_count());
}

void fill_result(const Problem& p, cublasLtMatmulHeuristicResult_t* r) {
  std::memset(r, 0, sizeof *r);
  store(&r->algo, AlgoState{});
  r->workspaceSize = 0;  // never more than the preference allows
  r->state = CUBLAS_STATUS_SUCCESS;
  r->wavesCount = waves(p);
}

}  // namespace

// ---- Library ----

SEER_CUBLAS_API cublasStatus_t cublasLtCreate(cublasLtHandle_t* handle) {
  if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
  if (!joined()) return CUBLAS_STATUS_NOT_INITIALIZED;
  charge_host(other_call_cost());
  auto* h = new cublasLtContext();
  {
    std::lock_guard<std::mutex> lock(g_mu);
    handles().insert(h);
  }
  *handle = h;
  return CUBLAS_STATUS_SUCCESS;
}

SEER_CUBLAS_API cublasStatus_t cublasLtDestroy(cublasLtHandle_t handle) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  std::lock_guard<std::mutex> lock(g_mu);
  // A cuBLAS handle passed as a cuBLASLt one (PyTorch does) is not ours to free.
  if (handles().erase(handle)) delete handle;
  return CUBLAS_STATUS_SUCCESS;
}

SEER_CUBLAS_API const char* cublasLtGetStatusName(cublasStatus_t status) {
  return status_name(status);
}

SEER_CUBLAS_API const char* cublasLtGetStatusString(cublasStatus_t status) {
  return status_string(status);
}

SEER_CUBLAS_API size_t cublasLtGetVersion(void) { return CUBLAS_VERSION; }

SEER_CUBLAS_API size_t cublasLtGetCudartVersion(void) { return kCudartVersion; }

SEER_CUBLAS_API cublasStatus_t cublasLtGetProperty(libraryPropertyType type, int* value) {
  if (!value) return CUBLAS_STATUS_INVALID_VALUE;
  switch (type) {
    case MAJOR_VERSION:
      *value = CUBLAS_VER_MAJOR;
      return CUBLAS_STATUS_SUCCESS;
    case MINOR_VERSION:
      *value = CUBLAS_VER_MINOR;
      return CUBLAS_STATUS_SUCCESS;
    case PATCH_LEVEL:
      *value = CUBLAS_VER_PATCH;
      return CUBLAS_STATUS_SUCCESS;
  }
  return CUBLAS_STATUS_INVALID_VALUE;
}

SEER_CUBLAS_API cublasStatus_t cublasLtHeuristicsCacheGetCapacity(size_t* capacity) {
  if (!capacity) return CUBLAS_STATUS_INVALID_VALUE;
  *capacity = g_cache_capacity;
  return CUBLAS_STATUS_SUCCESS;
}

SEER_CUBLAS_API cublasStatus_t cublasLtHeuristicsCacheSetCapacity(size_t capacity) {
  g_cache_capacity = capacity;
  return CUBLAS_STATUS_SUCCESS;
}

// Seer logs nothing of its own: logger settings are accepted.
SEER_CUBLAS_API cublasStatus_t cublasLtLoggerSetCallback(cublasLtLoggerCallback_t /*callback*/) {
  return CUBLAS_STATUS_SUCCESS;
}
SEER_CUBLAS_API cublasStatus_t cublasLtLoggerSetFile(FILE* /*file*/) {
  return CUBLAS_STATUS_SUCCESS;
}
SEER_CUBLAS_API cublasStatus_t cublasLtLoggerOpenFile(const char* path) {
  return path ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
}
SEER_CUBLAS_API cublasStatus_t cublasLtLoggerSetLevel(int level) {
  return level >= 0 && level <= 5 ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
}
SEER_CUBLAS_API cublasStatus_t cublasLtLoggerSetMask(int mask) {
  return mask >= 0 && mask <= 31 ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
}
SEER_CUBLAS_API cublasStatus_t cublasLtLoggerForceDisable() { return CUBLAS_STATUS_SUCCESS; }

// ---- Matrix layouts ----

SEER_CUBLAS_API cublasStatus_t cublasLtMatrixLayoutInit_internal(cublasLtMatrixLayout_t layout,
                                                                 size_t size, cudaDataType type,
                                                                 uint64_t rows, uint64_t cols,
                                                                 int64_t ld) {
  if (!layout) return CUBLAS_STATUS_INVALID_VALUE;
  if (size < sizeof(cublasLtMatrixLayoutOpaque_t)) return CUBLAS_STATUS_ALLOC_FAILED;
  LayoutState s;
  s.type = static_cast<uint32_t>(type);
  s.rows = rows;
  s.cols = cols;
  s.ld = ld;
  std::memset(layout, 0, sizeof *layout);
  store(layout, s);
  return CUBLAS_STATUS_SUCCESS;
}

SEER_CUBLAS_API cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t* layout,
                                                          cudaDataType type, uint64_t rows,
                                                          uint64_t cols, int64_t ld) {
  if (!layout) return CUBLAS_STATUS_INVALID_VALUE;
  auto* l = new cublasLtMatrixLayoutOpaque_t();
  cublasLtMatrixLayoutInit_internal(l, sizeof *l, type, rows, cols, ld);
  *layout = l;
  return CUBLAS_STATUS_SUCCESS;
}

SEER_CUBLAS_API cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t layout) {
  delete layout;
  return CUBLAS_STATUS_SUCCESS;
}

SEER_CUBLAS_API cublasStatus_t cublasLtMatrixLayoutSetAttribute(
    cublasLtMatrixLayout_t layout, cublasLtMatrixLayoutAttribute_t attr, const void* buf,
    size_t size) {
  return set_attr(layout, kLayoutFields, attr, buf, size);
}

SEER_CUBLAS_API cublasStatus_t cublasLtMatrixLayoutGetAttribute(
    cublasLtMatrixLayout_t layout, cublasLtMatrixLayoutAttribute_t attr, void* buf, size_t size,
    size_t* written) {
  return get_attr(layout, kLayoutFields, attr, buf, size, written);
}

// ---- Matmul descriptors ----

SEER_CUBLAS_API cublasStatus_t cublasLtMatmulDescInit_internal(cublasLtMatmulDesc_t desc,
                                                               size_t size,
                                                               cublasComputeType_t compute,
                                                               cudaDataType_t scale) {
  if (!desc) return CUBLAS_STATUS_INVALID_VALUE;
  if (size < sizeof(cublasLtMatmulDescOpaque_t)) return CUBLAS_STATUS_ALLOC_FAILED;
  cublasComputeType_t c;
  if (!normalize_compute(compute, &c)) return CUBLAS_STATUS_INVALID_VALUE;
  DescState s;
  s.compute_type = compute;
  s.scale_type = scale;
  std::memset(desc, 0, sizeof *desc);
  store(desc, s);
  return CUBLAS_STATUS_SUCCESS;
}

SEER_CUBLAS_API cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t* desc,
                                                        cublasComputeType_t compute,
                                                        cudaDataType_t scale) {
  if (!desc) return CUBLAS_STATUS_INVALID_VALUE;
  auto* d = new cublasLtMatmulDescOpaque_t();
  if (cublasStatus_t st = cublasLtMatmulDescInit_internal(d, sizeof *d, compute, scale)) {
    delete d;
    return st;
  }
  *desc = d;
  return CUBLAS_STATUS_SUCCESS;
}

SEER_CUBLAS_API cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc) {
  delete desc;
  return CUBLAS_STATUS_SUCCESS;
}

SEER_CUBLAS_API cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t desc,
                                                              cublasLtMatmulDescAttributes_t attr,
                                                              const void* buf, size_t size) {
  return set_attr(desc, kDescFields, attr, buf, size);
}

SEER_CUBLAS_API cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t desc,
                                                              cublasLtMatmulDescAttributes_t attr,
                                                              void* buf, size_t size,
                                                              size_t* written) {
  return get_attr(desc, kDescFields, attr, buf, size, written);
}

// ---- Preferences ----

SEER_CUBLAS_API cublasStatus_t
cublasLtMatmulPreferenceInit_internal(cublasLtMatmulPreference_t pref, size_t size) {
  if (!pref) return CUBLAS_STATUS_INVALID_VALUE;
  if (size < sizeof(cublasLtMatmulPreferenceOpaque_t)) return CUBLAS_STATUS_ALLOC_FAILED;
  std::memset(pref, 0, sizeof *pref);
  store(pref, PrefState{});
  return CUBLAS_STATUS_SUCCESS;
}

SEER_CUBLAS_API cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t* pref) {
  if (!pref) return CUBLAS_STATUS_INVALID_VALUE;
  auto* p = new cublasLtMatmulPreferenceOpaque_t();
  cublasLtMatmulPreferenceInit_internal(p, sizeof *p);
  *pref = p;
  return CUBLAS_STATUS_SUCCESS;
}

SEER_CUBLAS_API cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref) {
  delete pref;
  return CUBLAS_STATUS_SUCCESS;
}

SEER_CUBLAS_API cublasStatus_t cublasLtMatmulPreferenceSetAttribute(
    cublasLtMatmulPreference_t pref, cublasLtMatmulPreferenceAttributes_t attr, const void* buf,
    size_t size) {
  return set_attr(pref, kPrefFields, attr, buf, size);
}

SEER_CUBLAS_API cublasStatus_t cublasLtMatmulPreferenceGetAttribute(
    cublasLtMatmulPreference_t pref, cublasLtMatmulPreferenceAttributes_t attr, void* buf,
    size_t size, size_t* written) {
  return get_attr(pref, kPrefFields, attr, buf, size, written);
}

// ---- Algorithms ----

// One algorithm fits every problem: it needs no workspace, so it is always within the
// preference's limit.
SEER_CUBLAS_API cublasStatus_t cublasLtMatmulAlgoGetHeuristic(
    cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t a,
    cublasLtMatrixLayout_t b, cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d,
    cublasLtMatmulPreference_t pref, int requested, cublasLtMatmulHeuristicResult_t results[],
    int* returned) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (requested <= 0 || !results || !returned) return CUBLAS_STATUS_INVALID_VALUE;
  PrefState p;
  if (pref && !load(pref, kPrefMagic, &p)) return CUBLAS_STATUS_INVALID_VALUE;
  charge_host(other_call_cost());
  Problem prob;
  if (cublasStatus_t st = problem(desc, a, b, c, d, &prob)) return st;
  fill_result(prob, &results[0]);
  *returned = 1;
  return CUBLAS_STATUS_SUCCESS;
}

SEER_CUBLAS_API cublasStatus_t cublasLtMatmulAlgoGetIds(cublasLtHandle_t handle,
                                                        cublasComputeType_t /*compute*/,
                                                        cudaDataType_t /*scale*/,
                                                        cudaDataType_t /*a*/, cudaDataType_t /*b*/,
                                                        cudaDataType_t /*c*/, cudaDataType_t /*d*/,
                                                        int requested, int ids[], int* returned) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (requested <= 0 || !ids || !returned) return CUBLAS_STATUS_INVALID_VALUE;
  ids[0] = kAlgoId;
  *returned = 1;
  return CUBLAS_STATUS_SUCCESS;
}

SEER_CUBLAS_API cublasStatus_t cublasLtMatmulAlgoInit(cublasLtHandle_t handle,
                                                      cublasComputeType_t /*compute*/,
                                                      cudaDataType_t /*scale*/,
                                                      cudaDataType_t /*a*/, cudaDataType_t /*b*/,
                                                      cudaDataType_t /*c*/, cudaDataType_t /*d*/,
                                                      int id, cublasLtMatmulAlgo_t* algo) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!algo || id != kAlgoId) return CUBLAS_STATUS_INVALID_VALUE;
  std::memset(algo, 0, sizeof *algo);
  store(algo, AlgoState{});
  return CUBLAS_STATUS_SUCCESS;
}

SEER_CUBLAS_API cublasStatus_t cublasLtMatmulAlgoCheck(
    cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t a,
    cublasLtMatrixLayout_t b, cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d,
    const cublasLtMatmulAlgo_t* algo, cublasLtMatmulHeuristicResult_t* result) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!algo || !result) return CUBLAS_STATUS_INVALID_VALUE;
  Problem prob;
  if (cublasStatus_t st = problem(desc, a, b, c, d, &prob)) return st;
  const cublasLtMatmulAlgo_t copy = *algo;  // `algo` may point into `result`
  fill_result(prob, result);
  result->algo = copy;
  return CUBLAS_STATUS_SUCCESS;
}

SEER_CUBLAS_API cublasStatus_t cublasLtMatmulAlgoConfigSetAttribute(
    cublasLtMatmulAlgo_t* algo, cublasLtMatmulAlgoConfigAttributes_t attr, const void* buf,
    size_t size) {
  if (attr == CUBLASLT_ALGO_CONFIG_ID) return CUBLAS_STATUS_INVALID_VALUE;  // read-only
  return set_attr(algo, kAlgoFields, attr, buf, size);
}

SEER_CUBLAS_API cublasStatus_t cublasLtMatmulAlgoConfigGetAttribute(
    const cublasLtMatmulAlgo_t* algo, cublasLtMatmulAlgoConfigAttributes_t attr, void* buf,
    size_t size, size_t* written) {
  return get_attr(algo, kAlgoFields, attr, buf, size, written);
}

// ---- Matmul ----

SEER_CUBLAS_API cublasStatus_t cublasLtMatmul(
    cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, const void* alpha, const void* /*A*/,
    cublasLtMatrixLayout_t a, const void* /*B*/, cublasLtMatrixLayout_t b, const void* beta,
    const void* /*C*/, cublasLtMatrixLayout_t c, void* /*D*/, cublasLtMatrixLayout_t d,
    const cublasLtMatmulAlgo_t* /*algo*/, void* /*workspace*/, size_t /*workspace_bytes*/,
    cudaStream_t stream) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!alpha || !beta) return CUBLAS_STATUS_INVALID_VALUE;
  Problem p;
  if (cublasStatus_t st = problem(desc, a, b, c, d, &p)) return st;
  if (p.m == 0 || p.n == 0 || p.batch == 0) return CUBLAS_STATUS_SUCCESS;
  LibraryOp op;
  op.api = "cublasLtMatmul";
  if (const char* e = epilogue_name(p.epilogue); *e) op.api += std::string("+") + e;
  op.m = p.m;
  op.n = p.n;
  op.k = p.k;
  op.batch = p.batch;
  op.dtype = p.dtype;
  op.compute = p.compute;
  if (p.k == 0) {  // only scales C
    op.gemm = false;
    op.bytes = 2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * p.c_bytes *
               static_cast<double>(p.batch);
  }
  return enqueue(stream, op);
}
