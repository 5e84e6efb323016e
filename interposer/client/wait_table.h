#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <set>
#include <unordered_map>

#include "raw_allocator.h"

namespace seer::client {

// What the threads of a process that wait on one another (mutexes, condition variables,
// semaphores, joins) need for virtual time (thread_handoff.cpp): per object, the latest virtual
// time a tracked thread released it at (its stamp), how many threads wait on it, and wake tokens:
// one per release that may wake a counted waiter, carrying the releaser's clock. A token bounds the
// process' promise until a waiter returns and takes it, so a thread woken by a hand-off is never
// behind what the process promised while it slept.
class WaitTable {
 public:
  void add_waiter(const void* object);
  // A waiter returns: the time of the token it takes, if one is there.
  std::optional<int64_t> remove_waiter(const void* object);
  // A tracked thread releases `object` at `t`; up to `wakes` waiters may wake.
  void release(const void* object, int64_t t, int wakes);
  // The latest release time of `object` (INT64_MIN: none).
  int64_t stamp(const void* object) const;
  // The earliest token not yet taken.
  std::optional<int64_t> earliest_token() const;
  // The thread that exits was the only one to wait on its own join object.
  void forget(const void* object);

 private:
  // Never from malloc: see raw_allocator.h.
  using Tokens = std::multiset<int64_t, std::less<>, RawAllocator<int64_t>>;
  struct Entry {
    int waiters = 0;
    int64_t stamp = INT64_MIN;
    Tokens tokens;
  };
  void drop_tokens_locked(Entry& e);

  // A spin lock: a std::mutex would call pthread_mutex_lock, which this library interposes.
  class SpinLock {
   public:
    void lock();
    void unlock() { flag_.clear(std::memory_order_release); }

   private:
    std::atomic_flag flag_ = ATOMIC_FLAG_INIT;
  };
  struct Guard {
    explicit Guard(SpinLock& l) : l_(l) { l_.lock(); }
    ~Guard() { l_.unlock(); }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;
    SpinLock& l_;
  };
  mutable SpinLock mu_;
  std::unordered_map<const void*, Entry, std::hash<const void*>, std::equal_to<>,
                     RawAllocator<std::pair<const void* const, Entry>>>
      entries_;
  Tokens all_tokens_;
};

}  // namespace seer::client
