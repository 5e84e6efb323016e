#pragma once

#include <atomic>
#include <cstdint>

namespace seer::client {

enum class ThreadMode : int {
  kInApp = 0,    // running application code
  kInSeer = 1,   // inside an intercepted call
  kBlocked = 2,  // waiting for the session's answer
  kParked = 3,   // outside Seer for long: excluded from the promise until it returns
  kExited = 4,
};

// One application thread that has made a CUDA call. Owned by the Core; never freed (a thread
// that exits is marked kExited) so the flusher can read it without locks.
struct ThreadState {
  uint32_t index = 0;
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
  bool registered = false;
  // A thread that has only observed (queries, syncs, getters) and never submitted device work
  // makes no promise: its clock follows the process' submitters instead (see Core::enter). Its
  // first record makes it a submitter (Core::become_submitter).
  std::atomic<bool> submitter{false};
};

}  // namespace seer::client
