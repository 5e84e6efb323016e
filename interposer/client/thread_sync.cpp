// The pthread and semaphore calls through which the threads of a process hand work to one another
// (thread_handoff.cpp): thread start and join, condition variable waits and signals, semaphore
// waits and posts; and the blocking calls through which a thread waits for the world outside the
// process (sched_yield, socket receives and accepts), which make it one a stuck session may park.
// Each thread also gets an id that does not depend on the order threads first call CUDA.

#include "thread_sync.h"

#include <pthread.h>
#include <semaphore.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <climits>

#include "allocator_code.h"
#include "libc_next.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SEER_CLIENT_UNDER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SEER_CLIENT_UNDER_ASAN 1
#endif

#if defined(SEER_CLIENT_UNDER_ASAN)
// ASan's runtime defines an unversioned __pthread_mutex_lock that a link-time binding would reach,
// and that interceptor calls nothing until ASan has started, which can be after another library's
// constructor has taken a mutex. No preloaded malloc runs beside ASan, so dlsym is safe here.
namespace {
int seer_glibc_mutex_lock(pthread_mutex_t* mutex) {
  static auto real = seer::client::libc_next<int (*)(pthread_mutex_t*)>("pthread_mutex_lock");
  return real(mutex);
}
int seer_glibc_mutex_trylock(pthread_mutex_t* mutex) {
  static auto real = seer::client::libc_next<int (*)(pthread_mutex_t*)>("pthread_mutex_trylock");
  return real(mutex);
}
int seer_glibc_mutex_unlock(pthread_mutex_t* mutex) {
  static auto real = seer::client::libc_next<int (*)(pthread_mutex_t*)>("pthread_mutex_unlock");
  return real(mutex);
}
}  // namespace
#else
// glibc's mutex functions, bound when this library is linked. Resolving them at run time (dlsym)
// may call malloc, and a preloaded malloc takes its first mutex before that could be done.
#if defined(__x86_64__)
#define SEER_GLIBC_BASE_VERSION "GLIBC_2.2.5"
#elif defined(__aarch64__)
#define SEER_GLIBC_BASE_VERSION "GLIBC_2.17"
#else
#error "the first glibc symbol version of this architecture is not known"
#endif
extern "C" int seer_glibc_mutex_lock(pthread_mutex_t* mutex);
extern "C" int seer_glibc_mutex_trylock(pthread_mutex_t* mutex);
extern "C" int seer_glibc_mutex_unlock(pthread_mutex_t* mutex);
__asm__(".symver seer_glibc_mutex_lock,__pthread_mutex_lock@" SEER_GLIBC_BASE_VERSION);
__asm__(".symver seer_glibc_mutex_trylock,__pthread_mutex_trylock@" SEER_GLIBC_BASE_VERSION);
__asm__(".symver seer_glibc_mutex_unlock,__pthread_mutex_unlock@" SEER_GLIBC_BASE_VERSION);
#endif

namespace seer::client {
namespace {

constexpr uint32_t kUnset = UINT32_MAX;
thread_local uint32_t tl_id = kUnset;
thread_local uint32_t tl_children = 0;
std::atomic<uint32_t> g_unnamed{0};

// Threads started by a thread get ids that differ from its own and from each other's, with no
// global order involved; the top bit is left for threads Seer did not see start.
uint32_t child_id(uint32_t parent, uint32_t ordinal) {
  uint64_t x = (uint64_t{parent} << 32) | ordinal;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  const auto id = static_cast<uint32_t>(x) & 0x7fffffffu;
  return id == 0 ? 1 : id;
}

struct Start {
  void* (*routine)(void*);
  void* arg;
  uint32_t id;
  ThreadState* state;
};

void* start_thread(void* p) {
  const Start s = *static_cast<Start*>(p);
  delete static_cast<Start*>(p);
  tl_id = s.id;
  if (s.state) Core::start_child(s.state);
  return s.routine(s.arg);
}

thread_local int tl_internal = 0;

}  // namespace

InternalScope::InternalScope() { ++tl_internal; }
InternalScope::~InternalScope() { --tl_internal; }
bool in_internal_scope() { return tl_internal > 0; }

ThreadState* handoff_participant() { return tl_internal > 0 ? nullptr : Core::participant(); }

uint32_t logical_thread_id() {
  if (tl_id == kUnset) {
    const bool main_thread = ::syscall(SYS_gettid) == ::getpid();
    tl_id = main_thread ? 0 : 0x80000000u | g_unnamed.fetch_add(1, std::memory_order_relaxed);
  }
  return tl_id;
}

const void* join_object() { return reinterpret_cast<const void*>(pthread_self()); }

bool sem_taken_at_once(sem_t* sem) {
  static auto trywait = libc_next<int (*)(sem_t*)>("sem_trywait");
  ThreadState* ts = handoff_participant();
  if (!ts || trywait(sem) != 0) return false;
  InternalScope internal;
  Core::instance().acquired(*ts, sem);
  return true;
}

void release(const void* object, int wakes) {
  if (ThreadState* ts = handoff_participant()) {
    InternalScope internal;
    Core::instance().release(*ts, object, wakes);
  }
}

void after_lock(pthread_mutex_t* mutex) {
  if (ThreadState* ts = handoff_participant()) {
    InternalScope internal;
    Core::instance().acquired(*ts, mutex);
  }
}

}  // namespace seer::client

using seer::client::Core;
using seer::client::HandoffWait;
using seer::client::in_allocator_code;
using seer::client::libc_next;
using seer::client::ThreadState;

extern "C" {

__attribute__((visibility("default"))) int pthread_create(pthread_t* thread,
                                                          const pthread_attr_t* attr,
                                                          void* (*routine)(void*), void* arg) {
  static auto real = seer::client::next_definition<int (*)(
      pthread_t*, const pthread_attr_t*, void* (*)(void*), void*)>("pthread_create");
  const uint32_t id =
      seer::client::child_id(seer::client::logical_thread_id(), ++seer::client::tl_children);
  ThreadState* state = Core::virtual_time_active() ? Core::instance().prepare_child(id) : nullptr;
  auto* start = new seer::client::Start{routine, arg, id, state};
  const int rc = real(thread, attr, &seer::client::start_thread, start);
  if (rc != 0) {
    delete start;
    if (state) Core::instance().child_not_started(state);
  }
  return rc;
}

__attribute__((visibility("default"))) int pthread_join(pthread_t thread, void** result) {
  static auto real = libc_next<int (*)(pthread_t, void**)>("pthread_join");
  const auto* object = reinterpret_cast<const void*>(thread);
  ThreadState* ts = nullptr;
  int rc = 0;
  {
    HandoffWait wait(object);
    ts = wait.thread();
    rc = real(thread, result);
  }
  if (ts && rc == 0) {
    seer::client::InternalScope internal;
    Core::instance().joined_thread(*ts, object);
  }
  return rc;
}

// A mutex passes time from the thread that last released it to the one that takes it next: a
// thread that finds a finished result under a lock (a future completed before anyone waited on
// it) continues from the time it was finished at, whichever thread got there first in real time.
// A malloc's own mutexes are left out (allocator_code.h).
__attribute__((visibility("default"))) int pthread_mutex_lock(pthread_mutex_t* mutex) {
  const int rc = seer_glibc_mutex_lock(mutex);
  if (rc == 0 && !in_allocator_code(__builtin_return_address(0))) {
    seer::client::after_lock(mutex);
  }
  return rc;
}

__attribute__((visibility("default"))) int pthread_mutex_trylock(pthread_mutex_t* mutex) {
  const int rc = seer_glibc_mutex_trylock(mutex);
  if (rc == 0 && !in_allocator_code(__builtin_return_address(0))) {
    seer::client::after_lock(mutex);
  }
  return rc;
}

__attribute__((visibility("default"))) int pthread_mutex_unlock(pthread_mutex_t* mutex) {
  if (in_allocator_code(__builtin_return_address(0))) return seer_glibc_mutex_unlock(mutex);
  if (ThreadState* ts = seer::client::handoff_participant()) {
    seer::client::InternalScope internal;
    Core::instance().release(*ts, mutex, 0);
  }
  return seer_glibc_mutex_unlock(mutex);
}

__attribute__((visibility("default"))) int pthread_cond_wait(pthread_cond_t* cond,
                                                             pthread_mutex_t* mutex) {
  static auto real = libc_next<int (*)(pthread_cond_t*, pthread_mutex_t*)>("pthread_cond_wait");
  int rc = 0;
  {
    HandoffWait wait(cond);
    rc = real(cond, mutex);
  }
  seer::client::after_lock(mutex);
  return rc;
}

__attribute__((visibility("default"))) int pthread_cond_signal(pthread_cond_t* cond) {
  static auto real = libc_next<int (*)(pthread_cond_t*)>("pthread_cond_signal");
  seer::client::release(cond, 1);
  return real(cond);
}

__attribute__((visibility("default"))) int pthread_cond_broadcast(pthread_cond_t* cond) {
  static auto real = libc_next<int (*)(pthread_cond_t*)>("pthread_cond_broadcast");
  seer::client::release(cond, INT_MAX);
  return real(cond);
}

__attribute__((visibility("default"))) int sem_post(sem_t* sem) {
  static auto real = libc_next<int (*)(sem_t*)>("sem_post");
  seer::client::release(sem, 1);
  return real(sem);
}

__attribute__((visibility("default"))) int sem_wait(sem_t* sem) {
  static auto real = libc_next<int (*)(sem_t*)>("sem_wait");
  if (seer::client::sem_taken_at_once(sem)) return 0;
  HandoffWait wait(sem);
  return real(sem);
}

// Waits for the world outside the process: a thread that loops on them is waiting for another
// rank, not computing (Core::park_idle_threads).
__attribute__((visibility("default"))) int sched_yield() {
  static auto real = libc_next<int (*)()>("sched_yield");
  // A malloc spinning on its own lock waits for another thread of the process, not outside.
  if (in_allocator_code(__builtin_return_address(0))) return real();
  seer::client::OutsideWait wait;
  return real();
}

__attribute__((visibility("default"))) ssize_t recv(int fd, void* buf, size_t n, int flags) {
  static auto real = libc_next<ssize_t (*)(int, void*, size_t, int)>("recv");
  seer::client::OutsideWait wait;
  return real(fd, buf, n, flags);
}

__attribute__((visibility("default"))) ssize_t recvfrom(int fd, void* buf, size_t n, int flags,
                                                        sockaddr* from, socklen_t* len) {
  static auto real =
      libc_next<ssize_t (*)(int, void*, size_t, int, sockaddr*, socklen_t*)>("recvfrom");
  seer::client::OutsideWait wait;
  return real(fd, buf, n, flags, from, len);
}

__attribute__((visibility("default"))) ssize_t recvmsg(int fd, msghdr* msg, int flags) {
  static auto real = libc_next<ssize_t (*)(int, msghdr*, int)>("recvmsg");
  seer::client::OutsideWait wait;
  return real(fd, msg, flags);
}

__attribute__((visibility("default"))) int accept(int fd, sockaddr* addr, socklen_t* len) {
  static auto real = libc_next<int (*)(int, sockaddr*, socklen_t*)>("accept");
  seer::client::OutsideWait wait;
  return real(fd, addr, len);
}

__attribute__((visibility("default"))) int accept4(int fd, sockaddr* addr, socklen_t* len,
                                                   int flags) {
  static auto real = libc_next<int (*)(int, sockaddr*, socklen_t*, int)>("accept4");
  seer::client::OutsideWait wait;
  return real(fd, addr, len, flags);
}

}  // extern "C"
