#pragma once

#include <pthread.h>
#include <time.h>

#include <atomic>
#include <cstdint>

namespace seer::client {

enum class ThreadMode : int {
  kInApp = 0,    // running application code
  kInSeer = 1,   // inside an intercepted call
  kBlocked = 2,  // waiting for the session's answer
  kParked = 3,   // outside Seer for long: excluded from the promise until it returns
  kExited = 4,
  kWaiting = 5,   // waiting for another thread of the process (thread_sync.cpp): excluded
  kQuerying = 6,  // waiting for a query's answer: resumes at its own clock, so it bounds the
                  // promise; like kBlocked, it leaves threads waiting on others out of it
};

inline constexpr int64_t kCpuNotRead = -2;

// One application thread that has made a CUDA call. Owned by the Core; never freed (a thread
// that exits is marked kExited) so the flusher can read it without locks.
struct ThreadState {
  uint32_t index = 0;  // registration order (the thread list)
  // Names the thread in records, the same in every run: its creator's id and how many threads the
  // creator had started before (thread_sync.cpp); the main thread is 0.
  uint32_t id = 0;
  std::atomic<int64_t> clock{0};  // virtual ns; written only by the owning thread
  std::atomic<int> mode{static_cast<int>(ThreadMode::kInApp)};
  std::atomic<uint64_t> calls{0};  // intercepted calls so far (idleness detection)
  uint64_t calls_seen = 0;         // flusher: `calls` at its last look
  int64_t unchanged_since = 0;     // flusher: real ns since `calls` stopped moving
  int64_t cpu_mark = 0;            // thread CPU ns at the last accounting point
  uint32_t reads_since_call = 0;   // modeled mode: clock reads not yet added to `clock`
  int64_t last_shown = 0;          // modeled mode: the latest clock reading returned
  int device = 0;                  // current device (cudaSetDevice)
  int last_error = 0;              // cudaGetLastError / cudaPeekAtLastError
  uint32_t streams_created = 0;    // CudaState::new_stream_id
  // flusher: its CPU ns when `calls` stopped moving (-1: unknown)
  int64_t cpu_when_unchanged = kCpuNotRead;
  bool registered = false;
  // A thread that has only observed (queries, syncs, getters) and never submitted device work
  // makes no promise: its clock follows the process' submitters instead (see Core::enter). Its
  // first record makes it a submitter (Core::become_submitter).
  std::atomic<bool> submitter{false};
  // Its clock bounds the promise while it runs, though it may not have submitted yet: it was
  // started, or woken from a wait, by a thread whose clock does (thread_sync.cpp). Cleared when it
  // wakes on its own (a timeout). Submitters are always tracked.
  std::atomic<bool> tracked{false};
  // Real ns when it last entered a wait for the world outside the process (a poll, a sleep, a
  // socket read, a yield), 0 when it made a call since: the session may park it when stuck.
  std::atomic<int64_t> outside_since{0};
  // Outside waits it is in now (a wrapped wait may call another), and real ns when it last left
  // one: a thread that left its wait long ago and has made no call since is computing, not waiting.
  std::atomic<int> outside_depth{0};
  std::atomic<int64_t> outside_left{0};
  // In a wait on another thread (kWaiting), guarded by the core's batch lock: left out of a
  // promise since the wait began (the flusher sets it), and parked there by a stuck session.
  bool excluded_in_wait = false;
  bool parked_in_wait = false;
  // Its CPU-time clock, for the flusher (Core::seems_stuck); set by the thread itself.
  clockid_t cpu_clock{};
  std::atomic<bool> has_cpu_clock{false};

  void set_cpu_clock() {
    if (pthread_getcpuclockid(pthread_self(), &cpu_clock) == 0) {
      has_cpu_clock.store(true, std::memory_order_release);
    }
  }
};

}  // namespace seer::client
