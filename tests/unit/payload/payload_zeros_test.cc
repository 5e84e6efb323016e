// Collective inputs and results of zeros travel as a size, not as bytes: the session's outputs
// are then exactly what computing them from zero bytes gives, or it computes them as before.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "payload_exchange.h"
#include "payload_reduce.h"

namespace seer::rt {
namespace {

wire::CollPart part(wire::CollKind kind, uint64_t count, int datatype, int op, int root,
                    const std::string& input) {
  wire::CollPart p;
  p.set_kind(kind);
  p.set_count(count);
  p.set_datatype(datatype);
  p.set_type_bytes(payload::element_bytes(datatype));
  p.set_redop(op);
  p.set_root(root);
  p.set_payload(true);
  p.set_input(input);
  return p;
}

template <typename T>
std::string scalar(T v) {
  return std::string(reinterpret_cast<const char*>(&v), sizeof v);
}

// zero_outputs agrees with collective_outputs computed from the bytes: same sizes, all zeros.
void expect_zero_outputs(const std::vector<wire::CollPart>& parts) {
  const auto zeros = zero_outputs(parts);
  ASSERT_TRUE(zeros.has_value());
  const std::vector<std::string> outputs = collective_outputs(parts);
  ASSERT_EQ(zeros->size(), outputs.size());
  for (size_t r = 0; r < outputs.size(); ++r) {
    EXPECT_EQ((*zeros)[r], outputs[r].size()) << "rank " << r;
    EXPECT_TRUE(all_zero(outputs[r])) << "rank " << r;
  }
}

TEST(PayloadZeros, EveryKindDatatypeAndBuiltinReduction) {
  const wire::CollKind kinds[] = {
      wire::COLL_ALL_REDUCE,     wire::COLL_REDUCE,     wire::COLL_BROADCAST, wire::COLL_ALL_GATHER,
      wire::COLL_REDUCE_SCATTER, wire::COLL_ALL_TO_ALL, wire::COLL_GATHER,    wire::COLL_SCATTER};
  for (wire::CollKind kind : kinds) {
    for (int dt = payload::kInt8; dt <= payload::kFloat8e5m2; ++dt) {
      for (int op = payload::kSum; op < payload::kNumBuiltinOps; ++op) {
        SCOPED_TRACE(::testing::Message() << "kind " << kind << " datatype " << dt << " op " << op);
        // Empty inputs and inputs of zero bytes are the same zeros.
        const std::string zero_bytes(3 * 5 * static_cast<size_t>(payload::element_bytes(dt)), 0);
        expect_zero_outputs({part(kind, 5, dt, op, 1, ""), part(kind, 5, dt, op, 1, zero_bytes),
                             part(kind, 5, dt, op, 1, "")});
      }
    }
  }
}

TEST(PayloadZeros, PreMulSumOnlyWithAScalarThatKeepsZerosZero) {
  const int premul = payload::kNumBuiltinOps;
  auto parts = [&](int dt, const std::string& s) {
    std::vector<wire::CollPart> p(2, part(wire::COLL_ALL_REDUCE, 4, dt, premul, 0, ""));
    p[0].set_scalar(s);
    return p;
  };
  expect_zero_outputs(parts(payload::kFloat32, scalar(2.5f)));
  expect_zero_outputs(parts(payload::kInt32, scalar(int32_t{-3})));  // integers: always 0
  // 0 * -2 is -0, 0 * inf and 0 * NaN are NaN: computed from the bytes, never zeros.
  const float not_zero_preserving[] = {-2.0f, std::numeric_limits<float>::infinity(),
                                       std::numeric_limits<float>::quiet_NaN(), -0.0f};
  for (float s : not_zero_preserving) {
    SCOPED_TRACE(s);
    const auto p = parts(payload::kFloat32, scalar(s));
    EXPECT_FALSE(zero_outputs(p).has_value());
    const std::string out = collective_outputs(p)[0];
    ASSERT_EQ(out.size(), 16u);
    float first = 0;
    std::memcpy(&first, out.data(), sizeof first);
    if (std::isnan(s * 0.0f)) {
      EXPECT_TRUE(std::isnan(first));
    } else {
      EXPECT_TRUE(std::signbit(first));
    }
  }
  EXPECT_FALSE(zero_outputs(parts(payload::kFloat16, scalar(uint16_t{0xfc00}))).has_value());
}

TEST(PayloadZeros, OneRankWithDataComputesFromTheBytes) {
  std::string one(8, 0);
  one[5] = 1;  // partly zero
  const std::vector<wire::CollPart> p{part(wire::COLL_ALL_REDUCE, 2, payload::kInt32, 0, 0, ""),
                                      part(wire::COLL_ALL_REDUCE, 2, payload::kInt32, 0, 0, one)};
  EXPECT_FALSE(zero_outputs(p).has_value());
  EXPECT_EQ(collective_outputs(p)[0], one);
  // A broadcast root's data decides; the non-roots' zeros do not matter.
  EXPECT_FALSE(zero_outputs({part(wire::COLL_BROADCAST, 2, payload::kInt32, 0, 1, ""),
                             part(wire::COLL_BROADCAST, 2, payload::kInt32, 0, 1, one)})
                   .has_value());
}

TEST(PayloadZeros, ExchangeSendsSizesOfZeros) {
  PayloadExchange x;
  std::string error;
  wire::CollPart a = part(wire::COLL_ALL_GATHER, 3, payload::kFloat32, 0, 0, "");
  a.set_result_id(11);
  EXPECT_TRUE(x.submit(0, 5, 2, 0, wire::CollPart(a), error).empty());
  a.set_result_id(12);
  const auto r = x.submit(1, 5, 2, 1, wire::CollPart(a), error);
  ASSERT_EQ(r.size(), 2u);
  for (const PayloadResult& res : r) {
    EXPECT_EQ(res.zeros, 24u);
    EXPECT_EQ(res.bytes, "");
  }
  // Mixed: the bytes, as before.
  wire::CollPart b = part(wire::COLL_ALL_REDUCE, 1, payload::kInt32, 0, 0, scalar(int32_t{7}));
  b.set_result_id(13);
  EXPECT_TRUE(x.submit(0, 5, 2, 0, wire::CollPart(b), error).empty());
  b.set_input("");
  b.set_result_id(14);
  const auto m = x.submit(1, 5, 2, 1, wire::CollPart(b), error);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[1].zeros, 0u);
  EXPECT_EQ(m[1].bytes, scalar(int32_t{7}));
  EXPECT_EQ(error, "");
}

TEST(PayloadZeros, ReceiveOfZerosAndOfAWithheldSend) {
  PayloadExchange x;
  std::string error;
  wire::CollPart recv = part(wire::COLL_RECV, 4, payload::kFloat64, 0, 0, "");
  recv.set_result_id(21);
  EXPECT_TRUE(x.submit(1, 3, 2, 1, wire::CollPart(recv), error).empty());
  auto r = x.submit(0, 3, 2, 0, part(wire::COLL_SEND, 4, payload::kFloat64, 0, 1, ""), error);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].zeros, 32u);
  EXPECT_EQ(r[0].bytes, "");
  // A withheld send still gives an empty result: the receiver keeps its bytes.
  recv.set_result_id(22);
  EXPECT_TRUE(x.submit(1, 3, 2, 1, wire::CollPart(recv), error).empty());
  wire::CollPart withheld = part(wire::COLL_SEND, 4, payload::kFloat64, 0, 1, "");
  withheld.set_withheld(true);
  r = x.submit(0, 3, 2, 0, wire::CollPart(withheld), error);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].zeros, 0u);
  EXPECT_EQ(r[0].bytes, "");
  EXPECT_EQ(error, "");
}

}  // namespace
}  // namespace seer::rt
