#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace seer::rt::payload {

// NCCL's datatype and reduction-operation numbers (nccl.h), which the wire protocol carries.
enum DataType : int {
  kInt8 = 0,
  kUint8 = 1,
  kInt32 = 2,
  kUint32 = 3,
  kInt64 = 4,
  kUint64 = 5,
  kFloat16 = 6,
  kFloat32 = 7,
  kFloat64 = 8,
  kBfloat16 = 9,
  kFloat8e4m3 = 10,
  kFloat8e5m2 = 11,
};
enum RedOp : int { kSum = 0, kProd = 1, kMax = 2, kMin = 3, kAvg = 4, kNumBuiltinOps = 5 };

// Bytes of one element; 0 for an unknown datatype.
int element_bytes(int datatype);

// Elementwise reduction of `inputs` (each holding at least `offset + count` elements; missing
// bytes read as zero) over elements [offset, offset + count), folded in rank order with every
// step rounded to the datatype, as NCCL's kernels do:
//  * sum, prod, max, min;
//  * avg: floating types multiply each input by 1/nranks (rounded to the type) and sum; integer
//    types sum, then divide (truncating);
//  * op >= kNumBuiltinOps: PreMulSum, each input multiplied by `scalar` (one element of the
//    datatype) and summed.
// Integer arithmetic wraps. Returns count elements; empty for an unknown datatype.
std::string reduce(const std::vector<const std::string*>& inputs, uint64_t offset, uint64_t count,
                   int datatype, int op, const std::string& scalar);

// Conversions used by the reduction (exposed for tests): IEEE binary16, bfloat16 and the two FP8
// formats, rounding to nearest even; FP8 saturates to the largest finite value (SATFINITE).
uint16_t to_half(double v);
uint16_t to_bf16(double v);
uint8_t to_fp8_e4m3(double v);
uint8_t to_fp8_e5m2(double v);
double from_half(uint16_t bits);
double from_bf16(uint16_t bits);
double from_fp8_e4m3(uint8_t bits);
double from_fp8_e5m2(uint8_t bits);

}  // namespace seer::rt::payload
