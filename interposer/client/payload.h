#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>

#include "wire.pb.h"

namespace seer::client {

// The program's bytes in simulated device memory (PAYLOAD.md). Copies and memsets are applied when
// they are submitted, in program order: submission order is a valid order for every dependency a
// race-free program can express (a stream wait always refers to work submitted earlier), so the
// host sees what a real GPU would have produced by the time the program may look at it.
//
// Device bytes live in DeviceMemory's host shadow. Transfers up to max_bytes() move real bytes;
// larger ones are payload-free: their device destination reads as zeros afterwards (RAM stays
// small), while a large device-to-host copy still copies the shadow (zeros where never written).
//
// Small collectives carry bytes too: at submission a rank reads its input (read()) and registers
// its output (expect()); the session sends the result once every participant has submitted. It
// is written into the output buffer before anything later in program order touches that range
// (a copy, memset or collective overlapping it first waits for it), so NCCL calls never block.
class Payload {
 public:
  static Payload& instance();

  // A copy of `bytes` from `src` to `dst` (host or simulated device addresses, as `kind` says).
  void copy(void* dst, const void* src, uint64_t bytes, wire::CopyKind kind);
  // A memset of `count` elements of `elem_bytes` (1, 2 or 4) bytes each, set to `value`.
  void fill(void* dst, uint32_t value, uint32_t elem_bytes, uint64_t count);

  // The largest transfer (per copy, memset, or per-rank collective buffer) that carries bytes:
  // the session's Welcome once joined (SEER_PAYLOAD_MAX_BYTES, default 1 MiB), else that variable.
  uint64_t max_bytes() const;
  void set_max_bytes(uint64_t bytes);  // tests

  // A collective's input: `bytes` read from a device buffer or pinned/registered host memory
  // (after any pending result overlapping it); zeros for other pointers.
  std::string read(const void* src, uint64_t bytes);
  // The same, as a collective's record carries it: empty where every byte is zero (the session
  // reads missing bytes as zeros), which is what most inputs are, kernels computing nothing.
  std::string input(const void* src, uint64_t bytes);
  // A collective's output into `dst`, to arrive from the session later: returns the result id
  // to put in the record.
  uint64_t expect(void* dst, uint64_t bytes);
  // Applies an arrived result (also what the session path calls); exposed for tests. `zeros`,
  // when not 0, stands for a result of that many zero bytes (Answer.payload_zeros).
  void apply(uint64_t id, const std::string& bytes, uint64_t zeros = 0);
  // Results not yet written into memory.
  size_t pending() const;

 private:
  struct Pending {
    uint64_t id;
    uint64_t dst;
    uint64_t bytes;
    bool arrived;
    std::string data;
    uint64_t zeros;  // a result of zeros: Answer.payload_zeros
  };
  // Host address holding [address, address+bytes): the device shadow, or the address itself for
  // host memory; nullptr for device memory without a shadow.
  static void* resolve(const void* address, uint64_t bytes);
  // Writes every result that precedes (in program order) the last pending one overlapping the
  // range, waiting for the session where one has not arrived yet.
  void settle(const void* address, uint64_t bytes);
  void apply_arrived_locked();
  void write_locked(const Pending& p);
  void take_locked(Pending& p, wire::Answer& a);

  mutable std::mutex mu_;
  std::deque<Pending> pending_;
  uint64_t next_id_ = uint64_t{1} << 62;  // apart from request ids
  int64_t max_bytes_override_ = -1;
};

}  // namespace seer::client
