#include "user_object_destructors.h"

#include <condition_variable>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace seer::client {
namespace {

using Destructor = std::pair<void (*)(void*), void*>;

// Never destroyed: destructors may still be queued when the process exits.
struct Queue {
  std::mutex mu;
  std::condition_variable ready_cv;
  std::vector<Destructor> deferred;
  std::vector<Destructor> ready;
  bool thread_started = false;
};

Queue& queue() {
  static Queue* q = new Queue();
  return *q;
}

void run_ready(Queue& q) {
  for (;;) {
    std::vector<Destructor> batch;
    {
      std::unique_lock<std::mutex> lock(q.mu);
      q.ready_cv.wait(lock, [&] { return !q.ready.empty(); });
      batch.swap(q.ready);
    }
    for (const auto& [destroy, ptr] : batch) destroy(ptr);
  }
}

}  // namespace

void defer_user_object_destructor(void (*destroy)(void*), void* ptr) {
  if (!destroy) return;
  Queue& q = queue();
  std::lock_guard<std::mutex> lock(q.mu);
  q.deferred.emplace_back(destroy, ptr);
}

void release_user_object_destructors() {
  Queue& q = queue();
  std::lock_guard<std::mutex> lock(q.mu);
  if (q.deferred.empty()) return;
  q.ready.insert(q.ready.end(), q.deferred.begin(), q.deferred.end());
  q.deferred.clear();
  if (!q.thread_started) {
    q.thread_started = true;
    std::thread([&q] { run_ready(q); }).detach();
  }
  q.ready_cv.notify_one();
}

}  // namespace seer::client
