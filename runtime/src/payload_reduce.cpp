#include "payload_reduce.h"

#include <cmath>
#include <cstring>
#include <limits>

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

// Integers: wrapping arithmetic in the unsigned type of the same width.
template <typename T>
std::string reduce_int(const std::vector<const std::string*>& in, uint64_t offset, uint64_t count,
                       int op, const std::string& scalar) {
  using U = std::make_unsigned_t<T>;
  std::string out(count * sizeof(T), '\0');
  const T s = load<T>(&scalar, 0);
  const T n = static_cast<T>(in.size());
  for (uint64_t i = 0; i < count; ++i) {
    T acc{};
    for (size_t r = 0; r < in.size(); ++r) {
      T x = load<T>(in[r], offset + i);
      if (op >= kNumBuiltinOps) x = static_cast<T>(static_cast<U>(x) * static_cast<U>(s));
      if (r == 0) {
        acc = x;
        continue;
      }
      switch (op) {
        case kProd:
          acc = static_cast<T>(static_cast<U>(acc) * static_cast<U>(x));
          break;
        case kMax:
          acc = x > acc ? x : acc;
          break;
        case kMin:
          acc = x < acc ? x : acc;
          break;
        default:  // sum, avg, premulsum
          acc = static_cast<T>(static_cast<U>(acc) + static_cast<U>(x));
      }
    }
    if (op == kAvg && n > 0) acc = static_cast<T>(acc / n);
    store<T>(out, i, acc);
  }
  return out;
}

// Floating types: each step is computed exactly in double (or in the type itself for float and
// double) and rounded to the type through `round`.
template <typename Bits, typename Load, typename Round>
std::string reduce_float(const std::vector<const std::string*>& in, uint64_t offset, uint64_t count,
                         int op, const std::string& scalar, Load value, Round round) {
  std::string out(count * sizeof(Bits), '\0');
  double s = value(load<Bits>(&scalar, 0));
  if (op == kAvg) s = value(round(1.0 / static_cast<double>(in.size())));
  const bool premul = op == kAvg || op >= kNumBuiltinOps;
  for (uint64_t i = 0; i < count; ++i) {
    double acc = 0;
    for (size_t r = 0; r < in.size(); ++r) {
      double x = value(load<Bits>(in[r], offset + i));
      if (premul) x = value(round(x * s));
      if (r == 0) {
        acc = x;
        continue;
      }
      switch (op) {
        case kProd:
          acc = value(round(acc * x));
          break;
        case kMax:
          acc = fmax_nccl(acc, x);
          break;
        case kMin:
          acc = fmin_nccl(acc, x);
          break;
        default:
          acc = value(round(acc + x));
      }
    }
    store<Bits>(out, i, round(acc));
  }
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
