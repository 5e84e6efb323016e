#pragma once

#include <cstdint>

namespace seer::client {

// This thread's id, the same in every run (thread_sync.cpp): 0 for the main thread, else derived
// from its creator's id and how many threads the creator had started before it.
uint32_t logical_thread_id();

// The object a joiner waits on for this thread: its pthread_t.
const void* join_object();

}  // namespace seer::client

#include "core.h"

namespace seer::client {

// Seer's own use of locks while it handles a hand-off is not the program's: the interposed
// pthread calls pass straight through while one of these is alive on the thread.
class InternalScope {
 public:
  InternalScope();
  ~InternalScope();
  InternalScope(const InternalScope&) = delete;
  InternalScope& operator=(const InternalScope&) = delete;
};
bool in_internal_scope();

// The calling thread if it takes part in hand-offs (Core::participant) and is not inside Seer's
// own handling of one.
ThreadState* handoff_participant();

// A wait on another thread of the process (thread_handoff.cpp) by the calling thread, when it
// takes part.
class HandoffWait {
 public:
  explicit HandoffWait(const void* object) : ts_(handoff_participant()), object_(object) {
    if (ts_) {
      InternalScope internal;
      Core::instance().begin_wait(*ts_, object_);
    }
  }
  ~HandoffWait() {
    if (ts_) {
      InternalScope internal;
      Core::instance().end_wait(*ts_, object_);
    }
  }
  HandoffWait(const HandoffWait&) = delete;
  HandoffWait& operator=(const HandoffWait&) = delete;
  ThreadState* thread() const { return ts_; }

 private:
  ThreadState* ts_;
  const void* object_;
};

}  // namespace seer::client

#include <pthread.h>
#include <semaphore.h>

namespace seer::client {

// A semaphore wait that finds it posted takes it without waiting, and, like a mutex, continues
// from the time of the last tracked post (Python's Condition.wait acquires a lock the notifier
// may have released before the waiter got there).
bool sem_taken_at_once(sem_t* sem);

// The calling thread released `object` (a signal, a post, an unlock: wakes 0) or took a mutex.
void release(const void* object, int wakes);
void after_lock(pthread_mutex_t* mutex);

}  // namespace seer::client
