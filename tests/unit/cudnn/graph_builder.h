#pragma once

// Builds backend descriptors the way cudnn-frontend does (create, set, finalize), for tests.

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "descriptor.h"

namespace seer::cudnn::test {

using backend::Descriptor;

class Builder {
 public:
  ~Builder() {
    for (Descriptor* d : made_) backend::destroy(d);
  }

  Descriptor* make(int type) {
    Descriptor* d = backend::create(type);
    made_.push_back(d);
    return d;
  }

  static void set_i64(Descriptor* d, int name, std::vector<int64_t> v) {
    ASSERT_EQ(backend::set_attribute(*d, name, CUDNN_TYPE_INT64, static_cast<int64_t>(v.size()),
                                     v.data()),
              CUDNN_STATUS_SUCCESS);
  }
  static void set_i32(Descriptor* d, int name, int type, int32_t v) {
    ASSERT_EQ(backend::set_attribute(*d, name, type, 1, &v), CUDNN_STATUS_SUCCESS);
  }
  static void set_desc(Descriptor* d, int name, std::vector<Descriptor*> v) {
    ASSERT_EQ(backend::set_attribute(*d, name, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                     static_cast<int64_t>(v.size()), v.data()),
              CUDNN_STATUS_SUCCESS);
  }
  static void finalize(Descriptor* d) { ASSERT_EQ(backend::finalize(*d), CUDNN_STATUS_SUCCESS); }

  // A packed tensor.
  Descriptor* tensor(std::vector<int64_t> dims, cudnnDataType_t type = CUDNN_DATA_BFLOAT16,
                     bool is_virtual = false) {
    Descriptor* t = make(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    std::vector<int64_t> strides(dims.size(), 1);
    for (size_t i = dims.size() - 1; i-- > 0;) strides[i] = strides[i + 1] * dims[i + 1];
    set_i32(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, type);
    set_i64(t, CUDNN_ATTR_TENSOR_DIMENSIONS, dims);
    set_i64(t, CUDNN_ATTR_TENSOR_STRIDES, strides);
    set_i64(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, {next_uid_++});
    set_i64(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, {16});
    const bool v = is_virtual;
    EXPECT_EQ(backend::set_attribute(*t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &v),
              CUDNN_STATUS_SUCCESS);
    finalize(t);
    return t;
  }

  Descriptor* pointwise(int mode, Descriptor* x, Descriptor* b, Descriptor* y) {
    Descriptor* pw = make(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    set_i32(pw, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, mode);
    finalize(pw);
    Descriptor* op = make(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    set_desc(op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, {pw});
    if (x) set_desc(op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, {x});
    if (b) set_desc(op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, {b});
    set_desc(op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, {y});
    finalize(op);
    return op;
  }

  Descriptor* matmul(Descriptor* a, Descriptor* b, Descriptor* c) {
    Descriptor* mm = make(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
    set_i32(mm, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT);
    finalize(mm);
    Descriptor* op = make(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
    set_desc(op, CUDNN_ATTR_OPERATION_MATMUL_ADESC, {a});
    set_desc(op, CUDNN_ATTR_OPERATION_MATMUL_BDESC, {b});
    set_desc(op, CUDNN_ATTR_OPERATION_MATMUL_CDESC, {c});
    set_desc(op, CUDNN_ATTR_OPERATION_MATMUL_DESC, {mm});
    finalize(op);
    return op;
  }

  Descriptor* reduction(Descriptor* x, Descriptor* y) {
    Descriptor* r = make(CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
    set_i32(r, CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE,
            CUDNN_REDUCE_TENSOR_MAX);
    finalize(r);
    Descriptor* op = make(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR);
    set_desc(op, CUDNN_ATTR_OPERATION_REDUCTION_XDESC, {x});
    set_desc(op, CUDNN_ATTR_OPERATION_REDUCTION_YDESC, {y});
    set_desc(op, CUDNN_ATTR_OPERATION_REDUCTION_DESC, {r});
    finalize(op);
    return op;
  }

  Descriptor* graph(std::vector<Descriptor*> ops) {
    Descriptor* g = make(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    void* handle = this;  // any handle: the store only keeps it
    EXPECT_EQ(
        backend::set_attribute(*g, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle),
        CUDNN_STATUS_SUCCESS);
    set_desc(g, CUDNN_ATTR_OPERATIONGRAPH_OPS, ops);
    finalize(g);
    return g;
  }

  // heuristics -> engine config -> finalized execution plan, as cudnn-frontend does it.
  Descriptor* plan(Descriptor* graph) {
    Descriptor* heur = make(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    set_desc(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, {graph});
    set_i32(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, CUDNN_HEUR_MODE_A);
    finalize(heur);
    int64_t n = -1;
    EXPECT_EQ(backend::get_attribute(*heur, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                     CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &n, nullptr),
              CUDNN_STATUS_SUCCESS);
    EXPECT_GE(n, 1);
    Descriptor* cfg = make(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    void* out = cfg;
    EXPECT_EQ(backend::get_attribute(*heur, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                     CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &out),
              CUDNN_STATUS_SUCCESS);
    EXPECT_TRUE(cfg->finalized);
    Descriptor* plan = make(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    void* handle = this;
    EXPECT_EQ(backend::set_attribute(*plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1,
                                     &handle),
              CUDNN_STATUS_SUCCESS);
    set_desc(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, {cfg});
    finalize(plan);
    return plan;
  }

 private:
  std::vector<Descriptor*> made_;
  int64_t next_uid_ = 1;
};

}  // namespace seer::cudnn::test
