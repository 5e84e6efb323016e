#pragma once

#include <cstdint>

namespace seer::net {

// SplitMix64 finalizer: every input bit affects every output bit, so nearby keys (0, 1, 2...)
// land far apart. Use it to turn flow identifiers into ECMP hashes.
constexpr std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Folds `value` into `seed`; order matters. Build a flow hash from the fields that identify it,
// e.g. hash_combine(hash_combine(mix64(src), dst), channel).
constexpr std::uint64_t hash_combine(std::uint64_t seed, std::uint64_t value) {
  return mix64(seed ^ (mix64(value) + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2)));
}

// Maps a well-mixed hash uniformly onto [0, n) (multiply-high, no modulo bias).
constexpr std::uint32_t pick_index(std::uint64_t hash, std::uint32_t n) {
  __extension__ using Wide = unsigned __int128;  // GCC/Clang; __extension__ keeps -Wpedantic quiet
  return static_cast<std::uint32_t>((static_cast<Wide>(hash) * n) >> 64);
}

}  // namespace seer::net
