#pragma once

// Profiling activity for the CUPTI replacement (interposer/cupti): while enabled, every kernel,
// copy, memset, library call and NCCL operation gets a correlation id and is remembered with
// what the activity records need; collect() asks the session for their simulated times. While
// synchronization tracing is on, stream/event/device synchronizations and stream waits are
// remembered with the virtual times the calling thread entered and left them. Near-zero cost
// when off.

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda_state.h"
#include "pod_record.h"
#include "thread_state.h"

namespace seer::client::activity {

enum class OpKind : uint8_t { kKernel, kCopy, kMemset, kCollective };

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
  std::string name;  // kernels: the mangled name; library calls: their report label
  // Collectives: the first part's wire::CollKind and ncclDataType_t; collect() adds what the
  // session's NCCL model chose (OpTime's algo, proto, channels).
  uint8_t coll = 0;
  int datatype = 0;
  std::string algo, proto;
  int channels = 0;
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

// CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_* values.
enum class SyncKind : uint8_t { kEvent = 1, kStreamWaitEvent = 2, kStream = 3, kContext = 4 };

// One synchronization call made while synchronization tracing was on.
struct Sync {
  static constexpr uint64_t kNone = UINT64_MAX;
  SyncKind kind = SyncKind::kContext;
  uint32_t correlation = 0;
  int device = 0;
  uint64_t stream = kNone;  // stream syncs and waits
  uint64_t event = kNone;   // event syncs and waits
  uint32_t thread_id = 0;
  int64_t start = 0;  // virtual ns: the call entered and returned
  int64_t end = 0;
  std::vector<std::pair<uint32_t, uint64_t>> external;
};

extern std::atomic<bool> g_sync_enabled;

// Notes one synchronization call, from construction to destruction, while tracing is on.
class SyncNote {
 public:
  SyncNote(ThreadState& ts, SyncKind kind, int device, uint64_t stream = Sync::kNone,
           uint64_t event = Sync::kNone)
      : ts_(ts) {
    if (g_sync_enabled.load(std::memory_order_relaxed)) begin(kind, device, stream, event);
  }
  ~SyncNote() {
    if (active_) end();
  }
  SyncNote(const SyncNote&) = delete;
  SyncNote& operator=(const SyncNote&) = delete;

 private:
  void begin(SyncKind kind, int device, uint64_t stream, uint64_t event);
  void end();
  ThreadState& ts_;
  bool active_ = false;
  Sync sync_;
};

void set_sync_enabled(bool on);
// The synchronization calls noted since the last call, forgetting them.
std::vector<Sync> collect_syncs();

// Waits until every remembered op is simulated and returns them with their times (ops whose
// times the session did not report keep start = -1), forgetting them.
std::vector<Op> collect();

// The correlation id of the next op (ids start at 1).
uint32_t next_correlation();

}  // namespace seer::client::activity
