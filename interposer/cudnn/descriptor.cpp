#include "descriptor.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_set>

#include "graph_model.h"

namespace seer::cudnn::backend {

namespace {

std::mutex g_mu;
std::unordered_set<const Descriptor*>& registry() {
  static auto* s = new std::unordered_set<const Descriptor*>();
  return *s;
}

const std::vector<Snapshot> kNoDescriptors;

template <typename T>
std::optional<T> first(const Descriptor& d, int name) {
  const Value* v = d.find(name);
  if (!v || v->count < 1 || v->bytes.size() < sizeof(T) ||
      element_size(v->type) != static_cast<int64_t>(sizeof(T))) {
    return std::nullopt;
  }
  T out;
  std::memcpy(&out, v->bytes.data(), sizeof(T));
  return out;
}

Value int64_value(std::vector<int64_t> values) {
  Value v;
  v.type = CUDNN_TYPE_INT64;
  v.count = static_cast<int64_t>(values.size());
  v.bytes.resize(values.size() * sizeof(int64_t));
  if (!values.empty()) std::memcpy(v.bytes.data(), values.data(), v.bytes.size());
  return v;
}

Value int32_value(int32_t value) {
  Value v;
  v.type = CUDNN_TYPE_INT32;
  v.count = 1;
  v.bytes.resize(sizeof(value));
  std::memcpy(v.bytes.data(), &value, sizeof(value));
  return v;
}

// What an engine configuration derives: its workspace, and the shared memory it uses (0: a plan
// never fails to fit; cudnn-frontend compares it with the device's limit).
void derive_config(Descriptor& cfg, const Descriptor& graph) {
  cfg.attributes[CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE] = int64_value({model_graph(graph).workspace});
  cfg.attributes[CUDNN_ATTR_ENGINECFG_SHARED_MEMORY_USED] = int32_value(0);
}

Value descriptor_value(std::vector<Snapshot> descriptors) {
  Value v;
  v.type = CUDNN_TYPE_BACKEND_DESCRIPTOR;
  v.count = static_cast<int64_t>(descriptors.size());
  v.descriptors = std::move(descriptors);
  return v;
}

Value text_value(const std::string& s) {
  Value v;
  v.type = CUDNN_TYPE_CHAR;
  v.count = static_cast<int64_t>(s.size()) + 1;  // with its terminating NUL
  v.bytes.assign(s.begin(), s.end());
  v.bytes.push_back(0);
  return v;
}

bool has_all(const Descriptor& d, std::initializer_list<int> names) {
  return std::all_of(names.begin(), names.end(), [&](int n) { return d.has(n); });
}

cudnnStatus_t finalize_tensor(const Descriptor& d) {
  if (!has_all(
          d, {CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_ATTR_TENSOR_STRIDES,
              CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT})) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  const std::vector<int64_t> dims = d.int64s(CUDNN_ATTR_TENSOR_DIMENSIONS);
  const std::vector<int64_t> strides = d.int64s(CUDNN_ATTR_TENSOR_STRIDES);
  if (dims.empty() || dims.size() != strides.size() || dims.size() > CUDNN_DIM_MAX) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] <= 0 || strides[i] <= 0) return CUDNN_STATUS_BAD_PARAM;
  }
  return CUDNN_STATUS_SUCCESS;
}

// One engine configuration for the graph: engine 0, no knobs.
Snapshot engine_config(const Snapshot& graph, int64_t index) {
  auto engine = std::make_shared<Descriptor>();
  engine->type = CUDNN_BACKEND_ENGINE_DESCRIPTOR;
  engine->attributes[CUDNN_ATTR_ENGINE_OPERATION_GRAPH] = descriptor_value({graph});
  engine->attributes[CUDNN_ATTR_ENGINE_GLOBAL_INDEX] = int64_value({index});
  engine->finalized = true;
  auto cfg = std::make_shared<Descriptor>();
  cfg->type = CUDNN_BACKEND_ENGINECFG_DESCRIPTOR;
  cfg->attributes[CUDNN_ATTR_ENGINECFG_ENGINE] = descriptor_value({engine});
  derive_config(*cfg, *graph);
  cfg->finalized = true;
  return cfg;
}

// The operation graph an engine configuration (or an engine) runs.
Snapshot graph_of_config(const Descriptor& cfg) {
  const Snapshot engine = cfg.descriptor(CUDNN_ATTR_ENGINECFG_ENGINE);
  return engine ? engine->descriptor(CUDNN_ATTR_ENGINE_OPERATION_GRAPH) : nullptr;
}

std::string plan_json(const Descriptor& graph, const PlanModel& model) {
  std::string s = "{\"library\":\"seer-cudnn\",\"version\":" + std::to_string(kVersion) +
                  ",\"engine\":0,\"operations\":" +
                  std::to_string(graph.descriptors(CUDNN_ATTR_OPERATIONGRAPH_OPS).size()) +
                  ",\"workspace\":" + std::to_string(model.workspace) + ",\"kernels\":[";
  for (size_t i = 0; i < model.ops.size(); ++i) {
    s += (i ? ",\"" : "\"") + model.ops[i].api + "\"";
  }
  return s + "]}";
}

cudnnStatus_t finalize_plan(Descriptor& d) {
  // The handle is optional (deprecated since 9.x: cudnnBackendExecute names it).
  if (!d.has(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG)) {
    // A plan restored from its JSON text is not supported (Seer's text is not cuDNN's).
    return d.has(CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION) ? CUDNN_STATUS_NOT_SUPPORTED
                                                                : CUDNN_STATUS_BAD_PARAM;
  }
  const Snapshot cfg = d.descriptor(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG);
  const Snapshot graph = cfg ? graph_of_config(*cfg) : nullptr;
  if (!graph) return CUDNN_STATUS_BAD_PARAM;
  PlanModel model = model_graph(*graph);
  d.attributes[CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE] = int64_value({model.workspace});
  d.attributes[CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION] =
      text_value(plan_json(*graph, model));
  d.ops = std::move(model.ops);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t check_finalize(Descriptor& d) {
  switch (d.type) {
    case CUDNN_BACKEND_TENSOR_DESCRIPTOR:
      return finalize_tensor(d);
    case CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR:
      return has_all(d, {CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_ATTR_CONVOLUTION_CONV_MODE,
                         CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_ATTR_CONVOLUTION_DILATIONS,
                         CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS,
                         CUDNN_ATTR_CONVOLUTION_POST_PADDINGS})
                 ? CUDNN_STATUS_SUCCESS
                 : CUDNN_STATUS_BAD_PARAM;
    case CUDNN_BACKEND_POINTWISE_DESCRIPTOR:
      return d.has(CUDNN_ATTR_POINTWISE_MODE) ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM;
    case CUDNN_BACKEND_MATMUL_DESCRIPTOR:
      return d.has(CUDNN_ATTR_MATMUL_COMP_TYPE) ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM;
    case CUDNN_BACKEND_REDUCTION_DESCRIPTOR:
      return d.has(CUDNN_ATTR_REDUCTION_OPERATOR) ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM;
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR:
      return has_all(d, {CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
                         CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
                         CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
                         CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC})
                 ? CUDNN_STATUS_SUCCESS
                 : CUDNN_STATUS_BAD_PARAM;
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR:
      return has_all(d, {CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
                         CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
                         CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY,
                         CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC})
                 ? CUDNN_STATUS_SUCCESS
                 : CUDNN_STATUS_BAD_PARAM;
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR:
      return has_all(d, {CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X,
                         CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
                         CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY,
                         CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC})
                 ? CUDNN_STATUS_SUCCESS
                 : CUDNN_STATUS_BAD_PARAM;
    case CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR:
      return has_all(d, {CUDNN_ATTR_OPERATION_MATMUL_ADESC, CUDNN_ATTR_OPERATION_MATMUL_BDESC,
                         CUDNN_ATTR_OPERATION_MATMUL_CDESC, CUDNN_ATTR_OPERATION_MATMUL_DESC})
                 ? CUDNN_STATUS_SUCCESS
                 : CUDNN_STATUS_BAD_PARAM;
    case CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR:
      return d.has(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR) ? CUDNN_STATUS_SUCCESS
                                                                 : CUDNN_STATUS_BAD_PARAM;
    case CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR:
      return has_all(d, {CUDNN_ATTR_OPERATION_REDUCTION_XDESC, CUDNN_ATTR_OPERATION_REDUCTION_YDESC,
                         CUDNN_ATTR_OPERATION_REDUCTION_DESC})
                 ? CUDNN_STATUS_SUCCESS
                 : CUDNN_STATUS_BAD_PARAM;
    case CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR:
      // No handle is fine: fused operations' subgraphs (SDPA score modifiers) have none.
      if (d.descriptors(CUDNN_ATTR_OPERATIONGRAPH_OPS).empty()) return CUDNN_STATUS_BAD_PARAM;
      d.attributes[CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT] = int64_value({kEngineCount});
      return CUDNN_STATUS_SUCCESS;
    case CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR: {
      if (!has_all(d, {CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_ATTR_ENGINEHEUR_MODE})) {
        return CUDNN_STATUS_BAD_PARAM;
      }
      const Snapshot graph = d.descriptor(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH);
      if (!graph) return CUDNN_STATUS_BAD_PARAM;
      d.attributes[CUDNN_ATTR_ENGINEHEUR_RESULTS] = descriptor_value({engine_config(graph, 0)});
      return CUDNN_STATUS_SUCCESS;
    }
    case CUDNN_BACKEND_ENGINE_DESCRIPTOR: {
      const Snapshot graph = d.descriptor(CUDNN_ATTR_ENGINE_OPERATION_GRAPH);
      const std::optional<int64_t> index = d.int64(CUDNN_ATTR_ENGINE_GLOBAL_INDEX);
      if (!graph || !index || *index < 0) return CUDNN_STATUS_BAD_PARAM;
      return *index < kEngineCount ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_NOT_SUPPORTED;
    }
    case CUDNN_BACKEND_ENGINECFG_DESCRIPTOR: {
      const Snapshot graph = graph_of_config(d);
      if (!graph) return CUDNN_STATUS_BAD_PARAM;
      derive_config(d, *graph);
      return CUDNN_STATUS_SUCCESS;
    }
    case CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR:
      return finalize_plan(d);
    case CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR: {
      const Value* ids = d.find(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS);
      const Value* ptrs = d.find(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS);
      const int64_t n_ids = ids ? ids->count : 0;
      const int64_t n_ptrs = ptrs ? ptrs->count : 0;
      return n_ids == n_ptrs ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM;
    }
    case CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR:
      return has_all(d, {CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE})
                 ? CUDNN_STATUS_SUCCESS
                 : CUDNN_STATUS_BAD_PARAM;
    default:
      return CUDNN_STATUS_SUCCESS;
  }
}

}  // namespace

const Value* Descriptor::find(int name) const {
  auto it = attributes.find(name);
  return it == attributes.end() ? nullptr : &it->second;
}

std::optional<int64_t> Descriptor::int64(int name) const { return first<int64_t>(*this, name); }

std::vector<int64_t> Descriptor::int64s(int name) const {
  const Value* v = find(name);
  if (!v || element_size(v->type) != 8 || v->type == CUDNN_TYPE_DOUBLE) return {};
  std::vector<int64_t> out(static_cast<size_t>(v->count));
  if (!out.empty()) std::memcpy(out.data(), v->bytes.data(), out.size() * sizeof(int64_t));
  return out;
}

std::optional<int32_t> Descriptor::int32(int name) const { return first<int32_t>(*this, name); }

std::optional<bool> Descriptor::boolean(int name) const { return first<bool>(*this, name); }

Snapshot Descriptor::descriptor(int name) const {
  const std::vector<Snapshot>& all = descriptors(name);
  return all.empty() ? nullptr : all.front();
}

const std::vector<Snapshot>& Descriptor::descriptors(int name) const {
  const Value* v = find(name);
  return v ? v->descriptors : kNoDescriptors;
}

int64_t element_size(int attribute_type) {
  switch (attribute_type) {
    case CUDNN_TYPE_HANDLE:
    case CUDNN_TYPE_VOID_PTR:
    case CUDNN_TYPE_BACKEND_DESCRIPTOR:
      return sizeof(void*);
    case CUDNN_TYPE_BOOLEAN:
      return sizeof(bool);
    case CUDNN_TYPE_INT64:
    case CUDNN_TYPE_DOUBLE:
      return 8;
    case CUDNN_TYPE_CHAR:
      return 1;
    case CUDNN_TYPE_FRACTION:
      return sizeof(cudnnFraction_t);
    default:
      // Every other type is a 4-byte enum, float or int32 (9.26 adds two enums: 31 and 32).
      return attribute_type >= 0 && attribute_type < kAttrTypeCount ? 4 : 0;
  }
}

Descriptor* create(int type) {
  if (type < 0 || type >= kDescriptorTypeCount) return nullptr;
  auto* d = new Descriptor();
  d->type = type;
  std::lock_guard<std::mutex> lock(g_mu);
  registry().insert(d);
  return d;
}

bool destroy(void* p) {
  auto* d = static_cast<Descriptor*>(p);
  {
    std::lock_guard<std::mutex> lock(g_mu);
    if (!p || !registry().erase(d)) return false;
  }
  delete d;
  return true;
}

Descriptor* live(void* p) {
  auto* d = static_cast<Descriptor*>(p);
  std::lock_guard<std::mutex> lock(g_mu);
  return p && registry().count(d) ? d : nullptr;
}

cudnnStatus_t set_attribute(Descriptor& d, int name, int type, int64_t count,
                            const void* elements) {
  if (d.finalized) return CUDNN_STATUS_NOT_INITIALIZED;
  const int64_t size = element_size(type);
  if (size == 0 || count < 0 || (count > 0 && !elements)) return CUDNN_STATUS_BAD_PARAM;
  Value v;
  v.type = static_cast<cudnnBackendAttributeType_t>(type);
  v.count = count;
  if (type == CUDNN_TYPE_BACKEND_DESCRIPTOR) {
    const auto* handles = static_cast<void* const*>(elements);
    for (int64_t i = 0; i < count; ++i) {
      const Descriptor* ref = live(handles[i]);
      if (!ref) return CUDNN_STATUS_BAD_PARAM;
      if (!ref->finalized) return CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED;
      v.descriptors.push_back(std::make_shared<const Descriptor>(*ref));
    }
  } else {
    const auto* p = static_cast<const unsigned char*>(elements);
    v.bytes.assign(p, p + count * size);
  }
  d.attributes[name] = std::move(v);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t get_attribute(const Descriptor& d, int name, int type, int64_t requested,
                            int64_t* count, void* elements) {
  if (!d.finalized) return CUDNN_STATUS_NOT_INITIALIZED;
  if (element_size(type) == 0 || requested < 0) return CUDNN_STATUS_BAD_PARAM;
  // No array (cudnn-frontend passes an empty vector's data()) is a size query.
  if (!elements) requested = 0;
  const Value* v = d.find(name);
  if (!v) {
    // Unset optional attributes (notes, knobs, intermediates) read as empty lists.
    if (count) *count = 0;
    return CUDNN_STATUS_SUCCESS;
  }
  if (v->type != type) return CUDNN_STATUS_BAD_PARAM;
  if (!count && requested < v->count) return CUDNN_STATUS_BAD_PARAM;
  const int64_t n = std::min(requested, v->count);
  // A size query (nothing requested) learns how many there are; a read, how many it got.
  if (count) *count = requested == 0 ? v->count : n;
  if (type == CUDNN_TYPE_BACKEND_DESCRIPTOR) {
    auto* targets = static_cast<void**>(elements);
    for (int64_t i = 0; i < n; ++i) {
      Descriptor* target = live(targets[i]);
      const Descriptor& source = *v->descriptors[static_cast<size_t>(i)];
      if (!target || target->type != source.type) return CUDNN_STATUS_BAD_PARAM;
      *target = source;
    }
  } else if (n > 0) {
    std::memcpy(elements, v->bytes.data(), static_cast<size_t>(n * element_size(type)));
  }
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t finalize(Descriptor& d) {
  if (d.finalized) return CUDNN_STATUS_BAD_PARAM;
  const cudnnStatus_t s = check_finalize(d);
  if (s == CUDNN_STATUS_SUCCESS) d.finalized = true;
  return s;
}

}  // namespace seer::cudnn::backend
