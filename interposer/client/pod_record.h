#pragma once

#include <cstdint>

namespace seer::wire {
class Collective;
class LibraryCall;
class Nvtx;
class TritonKernel;
}  // namespace seer::wire

namespace seer::client {

// A record as the hot path stores it; converted to protobuf only when a batch is flushed.
struct PodRecord {
  enum Type : uint8_t {
    kRegisterKernel,
    kLaunch,
    kCopy,
    kEventRecord,
    kStreamWaitEvent,
    kStreamCreate,
    kAlloc,
    kFree,
    kCollective,
    kLibrary,
    kNvtx,
  };
  Type type = kLaunch;
  uint8_t copy_kind = 0;
  bool flag_a = false;  // copy: pinned; stream create: blocking
  bool flag_b = false;  // stream create: legacy default
  uint32_t thread = 0;
  int64_t t = 0;
  uint64_t a = 0;  // func id / stream / event / address
  uint64_t b = 0;  // stream / event / bytes
  uint32_t dims[7] = {};
  int32_t i0 = 0;              // gpu / src gpu / priority
  int32_t i1 = 0;              // dst gpu
  const char* name = nullptr;  // kernel name; lives as long as the program's registration
  wire::Collective* collective = nullptr;      // owned; released when the batch is flushed
  wire::LibraryCall* library = nullptr;        // owned; released when the batch is flushed
  wire::Nvtx* nvtx = nullptr;                  // owned; released when the batch is flushed
  const wire::TritonKernel* triton = nullptr;  // register: lives for the process
  // Launch: the kernel's size arguments (Triton's xnumel, r0_numel, ...).
  static constexpr int kMaxSizes = 4;
  uint8_t nsizes = 0;
  uint64_t sizes[kMaxSizes] = {};
};

}  // namespace seer::client
