// Virtual time across the threads of one process. Each tracked thread (one that submits work, or
// was started or woken by one) keeps its own clock; time passes from one thread to another only
// where the program hands over: a thread starts with its creator's clock, a joiner continues
// from the finished thread's, and a thread woken from a condition variable or semaphore wait
// continues from the clock of the tracked thread that signalled or posted.
//
// A waiting thread keeps its clock in the process' promise, except while some tracked thread of
// the process waits on the session (Core::promise_locked): the thread it waits for may be that
// one, which needs virtual time to pass (the main thread waiting for a backward pass whose
// autograd thread synchronizes). While it is left out, a wake token (wait_table.h) keeps the
// promise at or below the time a hand-off will wake it at. A thread that wakes on its own after
// being left out, behind what the process promised, resumes through the session like a parked
// thread (Core::resume). Nothing here depends on the order in which the machine runs threads, as
// long as the program's own hand-offs do not race.

#include "core.h"
#include "thread_sync.h"

namespace seer::client {

void Core::begin_wait(ThreadState& ts, const void* object) {
  waits_.add_waiter(object);
  std::lock_guard<std::mutex> lock(batch_mu_);
  ts.excluded_in_wait = false;
  ts.parked_in_wait = false;
  ts.mode.store(static_cast<int>(ThreadMode::kWaiting), std::memory_order_release);
}

void Core::end_wait(ThreadState& ts, const void* object) {
  // Under batch_mu_ the token and the thread's mode change together with respect to the promise
  // the flusher computes.
  std::lock_guard<std::mutex> lock(batch_mu_);
  const std::optional<Time> token = waits_.remove_waiter(object);
  auto mode = ThreadMode::kInApp;
  if (token) {
    if (*token > ts.clock.load(std::memory_order_relaxed)) {
      ts.clock.store(*token, std::memory_order_relaxed);
    }
    ts.tracked.store(true, std::memory_order_relaxed);
  } else if (ts.excluded_in_wait) {
    // Woke on its own (a timeout, a thread outside the simulation) after the process promised
    // without it: an observer again, or, having submitted work, it resumes through the session
    // if the process promised past its clock.
    if (!ts.submitter.load(std::memory_order_relaxed)) {
      ts.tracked.store(false, std::memory_order_relaxed);
    } else {
      const Time promised = last_all_blocked_sent_ ? INT64_MAX : last_promise_sent_;
      if (promised > ts.clock.load(std::memory_order_relaxed)) mode = ThreadMode::kParked;
    }
  }
  ts.excluded_in_wait = false;
  ts.parked_in_wait = false;
  ts.mode.store(static_cast<int>(mode), std::memory_order_release);
}

void Core::release(ThreadState& ts, const void* object, int wakes) {
  if (!ts.submitter.load(std::memory_order_relaxed) &&
      !ts.tracked.load(std::memory_order_relaxed)) {
    return;
  }
  account_cpu(ts);
  waits_.release(object, ts.clock.load(std::memory_order_relaxed), wakes);
}

void Core::acquired(ThreadState& ts, const void* object) {
  const Time stamp = waits_.stamp(object);
  if (stamp > ts.clock.load(std::memory_order_relaxed)) {
    ts.clock.store(stamp, std::memory_order_relaxed);
  }
}

void Core::joined_thread(ThreadState& ts, const void* object) {
  const Time stamp = waits_.stamp(object);
  waits_.forget(object);
  if (stamp > ts.clock.load(std::memory_order_relaxed)) {
    ts.clock.store(stamp, std::memory_order_relaxed);
  }
}

void Core::thread_exiting(ThreadState& ts) {
  if (!joined() || forked_child_) return;
  if (ts.mode.load(std::memory_order_relaxed) != static_cast<int>(ThreadMode::kInApp)) return;
  release(ts, join_object(), 1);
}

}  // namespace seer::client
