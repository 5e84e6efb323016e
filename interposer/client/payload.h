#pragma once

#include <cstdint>

#include "wire.pb.h"

namespace seer::client {

// The program's bytes in simulated device memory. Copies and memsets are applied when they are
// submitted, in program order: submission order is a valid order for every dependency a race-free
// program can express (a stream wait always refers to work submitted earlier), so the host sees
// what a real GPU would have produced by the time the program may look at it.
class Payload {
 public:
  static Payload& instance();

  // A copy of `bytes` from `src` to `dst` (host or simulated device addresses, as `kind` says).
  void copy(void* dst, const void* src, uint64_t bytes, wire::CopyKind kind);
  // A memset of `count` elements of `elem_bytes` (1, 2 or 4) bytes each, set to `value`.
  void fill(void* dst, uint32_t value, uint32_t elem_bytes, uint64_t count);
};

}  // namespace seer::client
