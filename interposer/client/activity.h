#pragma once

// Profiling activity for the CUPTI replacement (interposer/cupti): while enabled, every kernel,
// copy, memset and library call gets a correlation id and is remembered with what the activity
// records need; collect() asks the session for their simulated times. Near-zero cost when off.

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda_state.h"
#include "pod_record.h"
#include "thread_state.h"

namespace seer::client::activity {

enum class OpKind : uint8_t { kKernel, kCopy, kMemset };

// One op submitted while activities were enabled.
struct Op {
  OpKind kind = OpKind::kKernel;
  uint8_t copy_kind = 0;  // wire::CopyKind
  bool pinned = false;    // copies: the host side is page-locked
  uint32_t correlation = 0;
  uint64_t stream = 0;
  uint64_t ordinal = 0;  // StreamObj::submitted after this op
  int device = 0;
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  uint32_t shmem = 0;
  uint64_t bytes = 0;
  std::string name;        // kernels: the mangled name; library calls: their report label
  uint32_t thread_id = 0;  // the submitting thread (gettid)
  int64_t api_start = 0;   // the submitting call, virtual ns
  int64_t api_end = 0;
  // The calling thread's pushed external ids (top of each kind's stack) at submission.
  std::vector<std::pair<uint32_t, uint64_t>> external;
  int64_t start = -1;  // simulated, filled by collect()
  int64_t end = -1;
};

extern std::atomic<bool> g_enabled;

void note_submit_slow(ThreadState& ts, const StreamObj& s, const PodRecord& r);
// Called by ops::submit for every record appended to a stream.
inline void note_submit(ThreadState& ts, const StreamObj& s, const PodRecord& r) {
  if (g_enabled.load(std::memory_order_relaxed)) note_submit_slow(ts, s, r);
}

// Starts or stops remembering ops (the session notes their times while enabled).
void set_enabled(bool on);
bool enabled();

// The calling thread's external correlation stacks (cuptiActivityPushExternalCorrelationId).
void push_external(uint32_t kind, uint64_t id);
// False when that kind's stack is empty.
bool pop_external(uint32_t kind, uint64_t* id);

// Waits until every remembered op is simulated and returns them with their times (ops whose
// times the session did not report keep start = -1), forgetting them.
std::vector<Op> collect();

// The correlation id of the next op (ids start at 1).
uint32_t next_correlation();

}  // namespace seer::client::activity
