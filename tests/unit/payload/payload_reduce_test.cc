// The session's reduction of collective payloads: every NCCL reduction over every datatype, with
// each step rounded to the type, and the narrow floating-point conversions.

#include "payload_reduce.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace seer::rt::payload {
namespace {

// One element of `datatype` holding `v` (exactly representable in every test below).
std::string element(int datatype, double v) {
  std::string s(static_cast<size_t>(element_bytes(datatype)), '\0');
  auto put = [&](auto x) { std::memcpy(s.data(), &x, sizeof x); };
  switch (datatype) {
    case kInt8:
      put(static_cast<int8_t>(v));
      break;
    case kUint8:
      put(static_cast<uint8_t>(v));
      break;
    case kInt32:
      put(static_cast<int32_t>(v));
      break;
    case kUint32:
      put(static_cast<uint32_t>(v));
      break;
    case kInt64:
      put(static_cast<int64_t>(v));
      break;
    case kUint64:
      put(static_cast<uint64_t>(v));
      break;
    case kFloat16:
      put(to_half(v));
      break;
    case kFloat32:
      put(static_cast<float>(v));
      break;
    case kFloat64:
      put(v);
      break;
    case kBfloat16:
      put(to_bf16(v));
      break;
    case kFloat8e4m3:
      put(to_fp8_e4m3(v));
      break;
    case kFloat8e5m2:
      put(to_fp8_e5m2(v));
      break;
  }
  return s;
}

bool is_float(int t) { return t >= kFloat16 && t != kInt64 && t != kUint64; }

std::string reduce_of(int datatype, int op, const std::vector<double>& per_rank,
                      double scalar = 0) {
  std::vector<std::string> inputs;
  for (double v : per_rank) inputs.push_back(element(datatype, v));
  std::vector<const std::string*> ptrs;
  for (const auto& s : inputs) ptrs.push_back(&s);
  return reduce(ptrs, 0, 1, datatype, op, element(datatype, scalar));
}

TEST(PayloadReduce, EveryOperationOnEveryDatatype) {
  const std::vector<double> in{1, 2, 3, 6};
  for (int t = kInt8; t <= kFloat8e5m2; ++t) {
    SCOPED_TRACE("datatype " + std::to_string(t));
    EXPECT_EQ(reduce_of(t, kSum, in), element(t, 12));
    // 1*2*3*6 = 36; E5M2 has two mantissa bits: 36 lies halfway between 32 and 40, to even: 32.
    EXPECT_EQ(reduce_of(t, kProd, in), element(t, t == kFloat8e5m2 ? 32 : 36));
    EXPECT_EQ(reduce_of(t, kMax, in), element(t, 6));
    EXPECT_EQ(reduce_of(t, kMin, in), element(t, 1));
    // Average: floats premultiply by 1/4 (exact here), integers divide the sum.
    EXPECT_EQ(reduce_of(t, kAvg, in), element(t, 3));
    // PreMulSum: floats by 0.5, integers by 2.
    EXPECT_EQ(reduce_of(t, kNumBuiltinOps, in, is_float(t) ? 0.5 : 2),
              element(t, is_float(t) ? 6 : 24));
    EXPECT_EQ(reduce_of(t, kNumBuiltinOps + 3, in, is_float(t) ? 0.5 : 2),
              element(t, is_float(t) ? 6 : 24));
  }
}

TEST(PayloadReduce, IntegersWrapAndTruncate) {
  EXPECT_EQ(reduce_of(kUint8, kSum, {200, 100}), element(kUint8, 44));
  EXPECT_EQ(reduce_of(kInt8, kSum, {100, 100}), element(kInt8, -56));
  EXPECT_EQ(reduce_of(kInt32, kAvg, {-7, 0}), element(kInt32, -3));
  EXPECT_EQ(reduce_of(kInt8, kMin, {-5, 3}), element(kInt8, -5));
  EXPECT_EQ(reduce_of(kUint64, kMax, {1, 0}), element(kUint64, 1));
}

TEST(PayloadReduce, FloatAverageRoundsLikeNccl) {
  // 1/3 is rounded to float first; each input is scaled and the partial sums rounded.
  const float third = 1.0f / 3.0f;
  const float want = (1.0f * third + 2.0f * third) + 4.0f * third;
  EXPECT_EQ(reduce_of(kFloat32, kAvg, {1, 2, 4}),
            std::string(reinterpret_cast<const char*>(&want), 4));
  // half: 1 + 2^-11 (an exact tie) rounds to even at every step.
  const double tiny = std::ldexp(1.0, -11);
  EXPECT_EQ(reduce_of(kFloat16, kSum, {1, tiny}), element(kFloat16, 1));
  EXPECT_EQ(reduce_of(kFloat16, kSum, {1, 3 * tiny}), element(kFloat16, 1 + 4 * tiny));
}

TEST(PayloadReduce, SlicesByOffsetAndPadsShortInputs) {
  std::vector<int32_t> a{1, 2, 3, 4}, b{10, 20};
  std::string sa(reinterpret_cast<const char*>(a.data()), 16);
  std::string sb(reinterpret_cast<const char*>(b.data()), 8);
  const std::string r = reduce({&sa, &sb}, 1, 3, kInt32, kSum, "");
  std::vector<int32_t> got(3);
  std::memcpy(got.data(), r.data(), 12);
  EXPECT_EQ(got, (std::vector<int32_t>{22, 3, 4}));
  EXPECT_TRUE(reduce({&sa}, 0, 1, 99, kSum, "").empty());
}

TEST(PayloadReduce, HalfConversions) {
  EXPECT_EQ(to_half(1.0), 0x3c00);
  EXPECT_EQ(to_half(-2.0), 0xc000);
  EXPECT_EQ(to_half(65504), 0x7bff);
  EXPECT_EQ(to_half(65519), 0x7bff);
  EXPECT_EQ(to_half(65520), 0x7c00);  // rounds past the largest finite: inf
  EXPECT_EQ(to_half(std::ldexp(1.0, -24)), 0x0001);
  EXPECT_EQ(to_half(std::ldexp(1.0, -25)), 0x0000);  // tie to even
  EXPECT_EQ(to_half(std::ldexp(3.0, -26)), 0x0001);
  EXPECT_EQ(to_half(std::numeric_limits<double>::infinity()), 0x7c00);
  EXPECT_TRUE(std::isnan(from_half(to_half(std::nan("")))));
  EXPECT_EQ(from_half(0x3555), 0.333251953125);
  EXPECT_EQ(from_half(0x0001), std::ldexp(1.0, -24));
}

TEST(PayloadReduce, Bfloat16AndFp8Conversions) {
  EXPECT_EQ(to_bf16(1.0), 0x3f80);
  EXPECT_EQ(to_bf16(1.0 + std::ldexp(1.0, -8)), 0x3f80);      // tie to even
  EXPECT_EQ(to_bf16(1.0 + 3 * std::ldexp(1.0, -8)), 0x3f82);  // tie to even, upwards
  EXPECT_EQ(to_bf16(3.5e38), 0x7f80);                         // inf
  EXPECT_EQ(from_bf16(0xc040), -3.0);
  EXPECT_EQ(to_fp8_e4m3(1.0), 0x38);
  EXPECT_EQ(to_fp8_e4m3(448), 0x7e);
  EXPECT_EQ(to_fp8_e4m3(500), 0x7e);  // saturates
  EXPECT_EQ(to_fp8_e4m3(-1e9), 0xfe);
  EXPECT_EQ(to_fp8_e4m3(std::nan("")), 0x7f);
  EXPECT_EQ(to_fp8_e4m3(std::ldexp(1.0, -9)), 0x01);  // smallest subnormal
  EXPECT_EQ(from_fp8_e4m3(0x7e), 448);
  EXPECT_TRUE(std::isnan(from_fp8_e4m3(0x7f)));
  EXPECT_EQ(to_fp8_e5m2(1.0), 0x3c);
  EXPECT_EQ(to_fp8_e5m2(57344), 0x7b);
  EXPECT_EQ(to_fp8_e5m2(1e6), 0x7b);  // saturates
  EXPECT_EQ(from_fp8_e5m2(0x7c), std::numeric_limits<double>::infinity());
  EXPECT_EQ(from_fp8_e5m2(0x01), std::ldexp(1.0, -16));
}

}  // namespace
}  // namespace seer::rt::payload
