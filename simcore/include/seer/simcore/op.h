#pragma once

#include <cstdint>

#include "seer/simcore/time.h"

namespace seer::sim {

enum class OpKind : uint8_t {
  kKernel,
  kCopyH2D,
  kCopyD2H,
  kCopyD2D,
  kCopyH2H,
  kCopyPeer,
  kMemset,
  kEventRecord,
  kStreamWait,  // internal: a stream waits for an event; never reported
};

const char* op_kind_name(OpKind kind);

struct LaunchGeometry {
  uint32_t gx = 1, gy = 1, gz = 1;
  uint32_t bx = 1, by = 1, bz = 1;
  uint32_t shmem = 0;

  uint64_t blocks() const { return uint64_t{gx} * gy * gz; }
  uint64_t threads_per_block() const { return uint64_t{bx} * by * bz; }
};

// What an operation is, as submitted. Timing fields are filled in by the engine.
struct OpDesc {
  OpKind kind = OpKind::kKernel;
  uint32_t kernel = 0;  // index into the engine's kernel-name table
  LaunchGeometry geometry;
  uint64_t bytes = 0;
  bool pinned = false;
  int peer_gpu = -1;  // the other GPU of a peer copy
};

// Where each kernel's duration came from (the report shows the shares).
enum class TimeSource : uint8_t { kNone, kGenericKernel, kCopyModel };

// One finished operation, as the report and the trace see it.
struct OpRecord {
  int process = 0;
  int gpu = 0;
  uint32_t stream = 0;  // engine stream index
  OpDesc desc;
  TimeSource source = TimeSource::kNone;
  Time submit = 0;
  Time start = 0;
  Time end = 0;
};

}  // namespace seer::sim
