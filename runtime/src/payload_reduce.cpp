#include "payload_reduce.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace seer::rt::payload {
namespace {

// A binary floating-point format narrower than float: sign, `ebits` exponent, `mbits` mantissa.
struct MiniFormat {
  int ebits;
  int mbits;
  bool ieee;      // all-ones exponent means inf/NaN (false: E4M3, only S.1111.111 is NaN)
  bool saturate;  // overflow gives the largest finite value instead of inf
  uint32_t nan;   // canonical NaN bits
};

constexpr MiniFormat kHalf{5, 10, true, false, 0x7e00};
constexpr MiniFormat kBf16{8, 7, true, false, 0x7fc0};
constexpr MiniFormat kE4m3{4, 3, false, true, 0x7f};
constexpr MiniFormat kE5m2{5, 2, true, true, 0x7f};

uint32_t max_finite_bits(const MiniFormat& f) {
  const uint32_t max_exp = (1u << f.ebits) - (f.ieee ? 2 : 1);
  const uint32_t max_mant = (1u << f.mbits) - (f.ieee ? 1 : 2);
  return (max_exp << f.mbits) | max_mant;
}

uint32_t encode(const MiniFormat& f, double v) {
  const uint32_t sign = std::signbit(v) ? 1u << (f.ebits + f.mbits) : 0;
  if (std::isnan(v)) return sign | f.nan;
  const double a = std::fabs(v);
  const uint32_t inf = f.ieee ? ((1u << f.ebits) - 1) << f.mbits : f.nan;
  const uint32_t overflow = f.saturate ? max_finite_bits(f) : inf;
  if (std::isinf(a)) return sign | overflow;
  if (a == 0) return sign;
  const int bias = (1 << (f.ebits - 1)) - 1;
  int k = 0;
  std::frexp(a, &k);                               // a = m * 2^k, m in [0.5, 1)
  const int exponent = std::max(k - 1, 1 - bias);  // subnormals share the smallest exponent
  // Scaling by a power of two is exact; nearbyint rounds half to even.
  const double q = std::nearbyint(std::ldexp(a, f.mbits - exponent));
  uint64_t bits = 0;
  if (k - 1 < 1 - bias) {
    bits = static_cast<uint64_t>(q);  // subnormal (q == 2^mbits is the smallest normal)
  } else {
    int e = exponent;
    uint64_t m = static_cast<uint64_t>(q);
    if (m == (uint64_t{1} << (f.mbits + 1))) {
      m >>= 1;
      ++e;
    }
    bits = (static_cast<uint64_t>(e + bias) << f.mbits) | (m - (uint64_t{1} << f.mbits));
  }
  if (bits > max_finite_bits(f)) return sign | overflow;
  return sign | static_cast<uint32_t>(bits);
}

double decode(const MiniFormat& f, uint32_t bits) {
  const bool negative = (bits >> (f.ebits + f.mbits)) & 1;
  const uint32_t e = (bits >> f.mbits) & ((1u << f.ebits) - 1);
  const uint32_t m = bits & ((1u << f.mbits) - 1);
  const int bias = (1 << (f.ebits - 1)) - 1;
  double v = 0;
  if (f.ieee && e == (1u << f.ebits) - 1) {
    v = m ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  } else if (!f.ieee && e == (1u << f.ebits) - 1 && m == (1u << f.mbits) - 1) {
    v = std::numeric_limits<double>::quiet_NaN();
  } else if (e == 0) {
    v = std::ldexp(static_cast<double>(m), 1 - bias - f.mbits);
  } else {
    v = std::ldexp(static_cast<double>(m | (1u << f.mbits)), static_cast<int>(e) - bias - f.mbits);
  }
  return negative ? -v : v;
}

template <typename T>
T load(const std::string* s, uint64_t index) {
  T v{};
  const uint64_t at = index * sizeof(T);
  if (s && at + sizeof(T) <= s->size()) std::memcpy(&v, s->data() + at, sizeof(T));
  return v;
}

template <typename T>
void store(std::string& out, uint64_t index, T v) {
  std::memcpy(out.data() + index * sizeof(T), &v, sizeof(T));
}

double fmax_nccl(double a, double b) { return std::fmax(a, b); }
double fmin_nccl(double a, double b) { return std::fmin(a, b); }

// Folds one rank's elements [offset, offset + count) into `acc`, rank by rank rather than element
// by element: each input is read once, in order. Elements past the end of the input read as zero
// bits. `first` takes the rank's value (the fold starts from rank 0's).
template <typename Bits, typename Acc, typename Prep, typename Combine>
void fold_rank(std::vector<Acc>& acc, const std::string* in, uint64_t offset, bool first, Prep prep,
               Combine combine) {
  const uint64_t count = acc.size();
  const uint64_t have = in ? in->size() / sizeof(Bits) : 0;
  const uint64_t avail = have > offset ? std::min(count, have - offset) : 0;
  const char* data = in ? in->data() + offset * sizeof(Bits) : nullptr;
  for (uint64_t i = 0; i < count; ++i) {
    Bits b{};
    if (i < avail) std::memcpy(&b, data + i * sizeof(Bits), sizeof(Bits));
    const Acc x = prep(b);
    acc[i] = first ? x : combine(acc[i], x);
  }
}

template <typename Bits, typename Acc, typename Prep, typename Combine>
void fold_all(std::vector<Acc>& acc, const std::vector<const std::string*>& in, uint64_t offset,
              Prep prep, Combine combine) {
  for (size_t r = 0; r < in.size(); ++r) fold_rank<Bits>(acc, in[r], offset, r == 0, prep, combine);
}

// Integers: wrapping arithmetic in the unsigned type of the same width.
template <typename T>
std::string reduce_int(const std::vector<const std::string*>& in, uint64_t offset, uint64_t count,
                       int op, const std::string& scalar) {
  using U = std::make_unsigned_t<T>;
  const T s = load<T>(&scalar, 0);
  const T n = static_cast<T>(in.size());
  const bool premul = op >= kNumBuiltinOps;
  const auto prep = [&](T x) {
    return premul ? static_cast<T>(static_cast<U>(x) * static_cast<U>(s)) : x;
  };
  std::vector<T> acc(count);
  switch (op) {
    case kProd:
      fold_all<T>(acc, in, offset, prep,
                  [](T a, T x) { return static_cast<T>(static_cast<U>(a) * static_cast<U>(x)); });
      break;
    case kMax:
      fold_all<T>(acc, in, offset, prep, [](T a, T x) { return x > a ? x : a; });
      break;
    case kMin:
      fold_all<T>(acc, in, offset, prep, [](T a, T x) { return x < a ? x : a; });
      break;
    default:  // sum, avg, premulsum
      fold_all<T>(acc, in, offset, prep,
                  [](T a, T x) { return static_cast<T>(static_cast<U>(a) + static_cast<U>(x)); });
  }
  std::string out(count * sizeof(T), '\0');
  for (uint64_t i = 0; i < count; ++i) {
    T v = acc[i];
    if (op == kAvg && n > 0) v = static_cast<T>(v / n);
    store<T>(out, i, v);
  }
  return out;
}

// Floating types: each step is computed exactly in double (or in the type itself for float and
// double) and rounded to the type through `round`.
template <typename Bits, typename Load, typename Round>
std::string reduce_float(const std::vector<const std::string*>& in, uint64_t offset, uint64_t count,
                         int op, const std::string& scalar, Load value, Round round) {
  double s = value(load<Bits>(&scalar, 0));
  if (op == kAvg) s = value(round(1.0 / static_cast<double>(in.size())));
  const bool premul = op == kAvg || op >= kNumBuiltinOps;
  const auto prep = [&](Bits b) {
    const double x = value(b);
    return premul ? value(round(x * s)) : x;
  };
  std::vector<double> acc(count);
  switch (op) {
    case kProd:
      fold_all<Bits>(acc, in, offset, prep,
                     [&](double a, double x) { return value(round(a * x)); });
      break;
    case kMax:
      fold_all<Bits>(acc, in, offset, prep, [](double a, double x) { return fmax_nccl(a, x); });
      break;
    case kMin:
      fold_all<Bits>(acc, in, offset, prep, [](double a, double x) { return fmin_nccl(a, x); });
      break;
    default:
      fold_all<Bits>(acc, in, offset, prep,
                     [&](double a, double x) { return value(round(a + x)); });
  }
  std::string out(count * sizeof(Bits), '\0');
  for (uint64_t i = 0; i < count; ++i) store<Bits>(out, i, round(acc[i]));
  return out;
}

}  // namespace

uint16_t to_half(double v) { return static_cast<uint16_t>(encode(kHalf, v)); }
uint16_t to_bf16(double v) { return static_cast<uint16_t>(encode(kBf16, v)); }
uint8_t to_fp8_e4m3(double v) { return static_cast<uint8_t>(encode(kE4m3, v)); }
uint8_t to_fp8_e5m2(double v) { return static_cast<uint8_t>(encode(kE5m2, v)); }
double from_half(uint16_t bits) { return decode(kHalf, bits); }
double from_bf16(uint16_t bits) { return decode(kBf16, bits); }
double from_fp8_e4m3(uint8_t bits) { return decode(kE4m3, bits); }
double from_fp8_e5m2(uint8_t bits) { return decode(kE5m2, bits); }

int element_bytes(int datatype) {
  switch (datatype) {
    case kInt8:
    case kUint8:
    case kFloat8e4m3:
    case kFloat8e5m2:
      return 1;
    case kFloat16:
    case kBfloat16:
      return 2;
    case kInt32:
    case kUint32:
    case kFloat32:
      return 4;
    case kInt64:
    case kUint64:
    case kFloat64:
      return 8;
    default:
      return 0;
  }
}

std::string reduce(const std::vector<const std::string*>& in, uint64_t offset, uint64_t count,
                   int datatype, int op, const std::string& scalar) {
  switch (datatype) {
    case kInt8:
      return reduce_int<int8_t>(in, offset, count, op, scalar);
    case kUint8:
      return reduce_int<uint8_t>(in, offset, count, op, scalar);
    case kInt32:
      return reduce_int<int32_t>(in, offset, count, op, scalar);
    case kUint32:
      return reduce_int<uint32_t>(in, offset, count, op, scalar);
    case kInt64:
      return reduce_int<int64_t>(in, offset, count, op, scalar);
    case kUint64:
      return reduce_int<uint64_t>(in, offset, count, op, scalar);
    case kFloat32:
      return reduce_float<float>(
          in, offset, count, op, scalar, [](float b) { return static_cast<double>(b); },
          [](double v) { return static_cast<float>(v); });
    case kFloat64:
      return reduce_float<double>(
          in, offset, count, op, scalar, [](double b) { return b; }, [](double v) { return v; });
    case kFloat16:
      return reduce_float<uint16_t>(in, offset, count, op, scalar, from_half, to_half);
    case kBfloat16:
      return reduce_float<uint16_t>(in, offset, count, op, scalar, from_bf16, to_bf16);
    case kFloat8e4m3:
      return reduce_float<uint8_t>(in, offset, count, op, scalar, from_fp8_e4m3, to_fp8_e4m3);
    case kFloat8e5m2:
      return reduce_float<uint8_t>(in, offset, count, op, scalar, from_fp8_e5m2, to_fp8_e5m2);
    default:
      return {};
  }
}

}  // namespace seer::rt::payload
