// The backend descriptor store: attribute round trips, finalize checks, status codes.

#include "descriptor.h"

#include <gtest/gtest.h>

#include <string>

#include "graph_builder.h"

namespace seer::cudnn {
namespace {

using backend::Descriptor;
using test::Builder;

TEST(CudnnDescriptor, TensorAttributesRoundTrip) {
  Builder b;
  Descriptor* t = b.tensor({2, 3, 4, 5}, CUDNN_DATA_HALF);
  int64_t count = 0;
  int64_t dims[8] = {};
  ASSERT_EQ(
      backend::get_attribute(*t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 8, &count, dims),
      CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(count, 4);
  EXPECT_EQ(dims[0], 2);
  EXPECT_EQ(dims[3], 5);
  int64_t strides[4] = {};
  ASSERT_EQ(
      backend::get_attribute(*t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, &count, strides),
      CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(strides[0], 60);
  EXPECT_EQ(strides[3], 1);
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  ASSERT_EQ(backend::get_attribute(*t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &count,
                                   &type),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(type, CUDNN_DATA_HALF);
  // A size query (nothing requested) reports how many elements there are.
  ASSERT_EQ(backend::get_attribute(*t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 0, &count,
                                   nullptr),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(count, 4);
}

TEST(CudnnDescriptor, ReadingAnotherTypeOrBeforeFinalizeFails) {
  Builder b;
  Descriptor* t = b.tensor({8});
  int64_t count = 0;
  double d = 0;
  EXPECT_EQ(
      backend::get_attribute(*t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_DOUBLE, 1, &count, &d),
      CUDNN_STATUS_BAD_PARAM);
  Descriptor* open = b.make(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  int64_t dims[1];
  EXPECT_EQ(backend::get_attribute(*open, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 1, &count,
                                   dims),
            CUDNN_STATUS_NOT_INITIALIZED);
}

TEST(CudnnDescriptor, FinalizedDescriptorsAreReadOnly) {
  Builder b;
  Descriptor* t = b.tensor({8});
  const int64_t uid = 99;
  EXPECT_EQ(backend::set_attribute(*t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid),
            CUDNN_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(backend::finalize(*t), CUDNN_STATUS_BAD_PARAM);
}

TEST(CudnnDescriptor, TensorFinalizeNeedsEveryRequiredAttribute) {
  Builder b;
  Descriptor* t = b.make(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  const int64_t dims[2] = {4, 4}, strides[2] = {4, 1}, align = 16;
  const int32_t type = CUDNN_DATA_FLOAT;
  ASSERT_EQ(backend::set_attribute(*t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 2, dims),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(backend::set_attribute(*t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 2, strides),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(backend::set_attribute(*t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(
      backend::set_attribute(*t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align),
      CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(backend::finalize(*t), CUDNN_STATUS_BAD_PARAM);  // no unique id
  EXPECT_FALSE(t->finalized);
  const int64_t uid = 7;
  ASSERT_EQ(backend::set_attribute(*t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid),
            CUDNN_STATUS_SUCCESS);
  // Three strides for two dimensions.
  const int64_t bad_strides[3] = {4, 1, 1};
  ASSERT_EQ(backend::set_attribute(*t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 3, bad_strides),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(backend::finalize(*t), CUDNN_STATUS_BAD_PARAM);
  ASSERT_EQ(backend::set_attribute(*t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 2, strides),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(backend::finalize(*t), CUDNN_STATUS_SUCCESS);
}

TEST(CudnnDescriptor, BadSetArguments) {
  Builder b;
  Descriptor* t = b.make(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  EXPECT_EQ(backend::set_attribute(*t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 2, nullptr),
            CUDNN_STATUS_BAD_PARAM);
  const int64_t v = 1;
  EXPECT_EQ(backend::set_attribute(*t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, -1, &v),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(backend::set_attribute(*t, CUDNN_ATTR_TENSOR_DIMENSIONS, 1000, 1, &v),
            CUDNN_STATUS_BAD_PARAM);
}

TEST(CudnnDescriptor, ReferencedDescriptorsMustBeLiveAndFinalized) {
  Builder b;
  Descriptor* open = b.make(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  Descriptor* op = b.make(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
  void* ref = open;
  EXPECT_EQ(backend::set_attribute(*op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC,
                                   CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &ref),
            CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED);
  int not_a_descriptor = 0;
  ref = &not_a_descriptor;
  EXPECT_EQ(backend::set_attribute(*op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC,
                                   CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &ref),
            CUDNN_STATUS_BAD_PARAM);
}

TEST(CudnnDescriptor, StoredDescriptorsAreCopies) {
  Builder b;
  Descriptor* x = b.tensor({4, 4});
  Descriptor* y = b.tensor({4, 4});
  Descriptor* op = b.pointwise(CUDNN_POINTWISE_RELU_FWD, x, nullptr, y);
  backend::destroy(x);  // the program may destroy a tensor once it is in an operation
  ASSERT_NE(op->descriptor(CUDNN_ATTR_OPERATION_POINTWISE_XDESC), nullptr);
  EXPECT_EQ(op->descriptor(CUDNN_ATTR_OPERATION_POINTWISE_XDESC)
                ->int64s(CUDNN_ATTR_TENSOR_DIMENSIONS)
                .size(),
            2u);
}

TEST(CudnnDescriptor, CreateAndDestroy) {
  EXPECT_EQ(backend::create(-1), nullptr);
  EXPECT_EQ(backend::create(backend::kDescriptorTypeCount), nullptr);
  Descriptor* d = backend::create(backend::kSdpaFwdDescriptor);  // a 9.26-only type
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(backend::live(d), d);
  EXPECT_TRUE(backend::destroy(d));
  EXPECT_FALSE(backend::destroy(d));
  EXPECT_EQ(backend::live(d), nullptr);
}

TEST(CudnnDescriptor, GraphAndPlanFinalizeChecks) {
  Builder b;
  Descriptor* g = b.make(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  EXPECT_EQ(backend::finalize(*g), CUDNN_STATUS_BAD_PARAM);  // no operations
  Descriptor* plan = b.make(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
  EXPECT_EQ(backend::finalize(*plan), CUDNN_STATUS_BAD_PARAM);  // no engine config
  Descriptor* heur = b.make(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  EXPECT_EQ(backend::finalize(*heur), CUDNN_STATUS_BAD_PARAM);  // no graph, no mode
  Descriptor* pack = b.make(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  const int64_t uids[2] = {1, 2};
  void* ptrs[1] = {nullptr};
  ASSERT_EQ(
      backend::set_attribute(*pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 2, uids),
      CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(backend::set_attribute(*pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS,
                                   CUDNN_TYPE_VOID_PTR, 1, ptrs),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(backend::finalize(*pack), CUDNN_STATUS_BAD_PARAM);  // two ids, one pointer
}

TEST(CudnnDescriptor, EnginesBeyondTheCountAreNotSupported) {
  Builder b;
  Descriptor* x = b.tensor({4, 4});
  Descriptor* y = b.tensor({4, 4});
  Descriptor* g = b.graph({b.pointwise(CUDNN_POINTWISE_RELU_FWD, x, nullptr, y)});
  int64_t count = 0, engines = 0;
  ASSERT_EQ(backend::get_attribute(*g, CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT,
                                   CUDNN_TYPE_INT64, 1, &count, &engines),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(engines, backend::kEngineCount);
  Descriptor* e = b.make(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  Builder::set_desc(e, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, {g});
  Builder::set_i64(e, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, {engines});
  EXPECT_EQ(backend::finalize(*e), CUDNN_STATUS_NOT_SUPPORTED);
  Builder::set_i64(e, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, {0});
  EXPECT_EQ(backend::finalize(*e), CUDNN_STATUS_SUCCESS);
  // Notes and knobs are empty lists.
  int32_t notes[4];
  ASSERT_EQ(backend::get_attribute(*e, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE, 4,
                                   &count, notes),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(count, 0);
}

// What cudnn-frontend (PyTorch 2.15's SDPA) does: graphs and plans without a handle, reads
// without an element count pointer, size queries with a null array.
TEST(CudnnDescriptor, FrontendCallPatterns) {
  Builder b;
  Descriptor* x = b.tensor({4, 4});
  Descriptor* y = b.tensor({4, 4});
  Descriptor* op = b.pointwise(CUDNN_POINTWISE_RELU_FWD, x, nullptr, y);
  Descriptor* g = b.make(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  Builder::set_desc(g, CUDNN_ATTR_OPERATIONGRAPH_OPS, {op});
  ASSERT_EQ(backend::finalize(*g), CUDNN_STATUS_SUCCESS);
  Descriptor* heur = b.make(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  Builder::set_desc(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, {g});
  Builder::set_i32(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, CUDNN_HEUR_MODE_A);
  Builder::finalize(heur);
  Descriptor* cfg = b.make(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
  void* out = cfg;
  ASSERT_EQ(backend::get_attribute(*heur, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                   CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, nullptr, &out),
            CUDNN_STATUS_SUCCESS);
  int32_t shared = -1;
  ASSERT_EQ(backend::get_attribute(*cfg, CUDNN_ATTR_ENGINECFG_SHARED_MEMORY_USED, CUDNN_TYPE_INT32,
                                   1, nullptr, &shared),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(shared, 0);
  int64_t count = -1;
  ASSERT_EQ(backend::get_attribute(*cfg, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES,
                                   CUDNN_TYPE_BACKEND_DESCRIPTOR, 8, &count, nullptr),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(count, 0);
  Descriptor* plan = b.make(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
  Builder::set_desc(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, {cfg});
  EXPECT_EQ(backend::finalize(*plan), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(plan->ops.size(), 1u);
}

TEST(CudnnDescriptor, PlanReportsWorkspaceAndJson) {
  Builder b;
  Descriptor* x = b.tensor({4, 4});
  Descriptor* y = b.tensor({4, 4});
  Descriptor* plan = b.plan(b.graph({b.pointwise(CUDNN_POINTWISE_RELU_FWD, x, nullptr, y)}));
  int64_t count = 0, workspace = -1;
  ASSERT_EQ(backend::get_attribute(*plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                   CUDNN_TYPE_INT64, 1, &count, &workspace),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(workspace, 0);
  ASSERT_EQ(backend::get_attribute(*plan, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION,
                                   CUDNN_TYPE_CHAR, 0, &count, nullptr),
            CUDNN_STATUS_SUCCESS);
  std::string json(static_cast<size_t>(count), '\0');
  ASSERT_EQ(backend::get_attribute(*plan, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION,
                                   CUDNN_TYPE_CHAR, count, &count, json.data()),
            CUDNN_STATUS_SUCCESS);
  EXPECT_NE(json.find("cudnn pointwise"), std::string::npos);
}

}  // namespace
}  // namespace seer::cudnn
