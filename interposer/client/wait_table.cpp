#include "wait_table.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>

namespace seer::client {

void WaitTable::SpinLock::lock() {
  for (int spins = 0; flag_.test_and_set(std::memory_order_acquire); ++spins) {
    // Past a few spins the holder is likely descheduled: yield (the system call, not the
    // interposed sched_yield).
    if (spins >= 64) ::syscall(SYS_sched_yield);
  }
}

void WaitTable::add_waiter(const void* object) {
  Guard lock(mu_);
  ++entries_[object].waiters;
}

void WaitTable::drop_tokens_locked(Entry& e) {
  for (int64_t t : e.tokens) all_tokens_.erase(all_tokens_.find(t));
  e.tokens.clear();
}

std::optional<int64_t> WaitTable::remove_waiter(const void* object) {
  Guard lock(mu_);
  auto it = entries_.find(object);
  if (it == entries_.end()) return std::nullopt;
  Entry& e = it->second;
  std::optional<int64_t> taken;
  if (!e.tokens.empty()) {
    taken = *e.tokens.begin();
    all_tokens_.erase(all_tokens_.find(*taken));
    e.tokens.erase(e.tokens.begin());
  }
  e.waiters = std::max(0, e.waiters - 1);
  // Tokens exist only for counted waiters: with none left, no one can take them.
  if (e.waiters == 0) drop_tokens_locked(e);
  return taken;
}

void WaitTable::release(const void* object, int64_t t, int wakes) {
  Guard lock(mu_);
  Entry& e = entries_[object];
  e.stamp = std::max(e.stamp, t);
  const int room = e.waiters - static_cast<int>(e.tokens.size());
  for (int i = 0; i < std::min(room, wakes); ++i) {
    e.tokens.insert(t);
    all_tokens_.insert(t);
  }
}

int64_t WaitTable::stamp(const void* object) const {
  Guard lock(mu_);
  auto it = entries_.find(object);
  return it == entries_.end() ? INT64_MIN : it->second.stamp;
}

std::optional<int64_t> WaitTable::earliest_token() const {
  Guard lock(mu_);
  if (all_tokens_.empty()) return std::nullopt;
  return *all_tokens_.begin();
}

void WaitTable::forget(const void* object) {
  Guard lock(mu_);
  auto it = entries_.find(object);
  if (it == entries_.end() || it->second.waiters > 0) return;
  entries_.erase(it);
}

}  // namespace seer::client
