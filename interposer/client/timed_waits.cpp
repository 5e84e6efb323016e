// Timed waits whose deadline is an absolute reading of a virtualized clock
// (pthread_cond_timedwait/clockwait, sem_timedwait/clockwait, mutex timed locks, absolute
// clock_nanosleep). The program computed the deadline from virtual time (std::condition_variable::
// wait_for, Python's lock and GIL timeouts), but the kernel waits against the real clock: the
// remaining virtual interval is turned into the same interval of real time. Without this, a
// simulation running behind real time makes every such wait return at once (watchdog threads spin)
// and one running ahead makes it sleep far too long. Relative waits (nanosleep, poll, epoll_wait,
// select) already use real time and are left alone. Every wait here also tells the core that the
// thread waited: clock reads around such waits (a polling loop on a socket or a file) do not move
// virtual time in modeled mode, and a thread that waits for the world outside the process (a
// sleep, a poll) may be parked by a stuck session. Condition variable and semaphore waits are
// hand-offs between the process' threads as well (thread_handoff.cpp).

#include <dlfcn.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/epoll.h>
#include <sys/select.h>

#include <cstdint>
#include <ctime>

#include "core.h"
#include "libc_next.h"
#include "thread_sync.h"
#include "time_source.h"

namespace {

using seer::client::Core;

bool active(clockid_t c) {
  return seer::client::virtualized_clock(c) && Core::virtual_time_active();
}

// glibc declares the deadline nonnull; hide the check from the optimizer so it is kept.
bool missing(const void* p) {
  asm("" : "+r"(p));
  return p == nullptr;
}

int64_t to_ns(const timespec& t) { return int64_t{t.tv_sec} * 1000000000 + t.tv_nsec; }

timespec from_ns(int64_t ns) {
  return timespec{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
}

// The real deadline, on the same clock, that leaves as much real time as `abs` leaves virtual time.
timespec real_deadline(clockid_t clock, const timespec* abs) {
  Core::note_host_wait(false);
  int64_t remaining = to_ns(*abs) - Core::instance().clock_peek_ns(clock);
  if (remaining < 0) remaining = 0;
  return from_ns(seer::client::real_clock_ns(clock) + remaining);
}

// glibc keeps a condition variable's clock in bit 1 of __wrefs (set by pthread_condattr_setclock
// with CLOCK_MONOTONIC); every other condition variable waits on CLOCK_REALTIME.
clockid_t clock_of(const pthread_cond_t* cond) {
  return (cond->__data.__wrefs & 2) ? CLOCK_MONOTONIC : CLOCK_REALTIME;
}

template <typename Fn>
Fn next(const char* name) {
  return seer::client::libc_next<Fn>(name);
}

}  // namespace

namespace seer::client {

int real_poll(pollfd* fds, nfds_t n, int timeout_ms) {
  static auto real = next<int (*)(pollfd*, nfds_t, int)>("poll");
  return real(fds, n, timeout_ms);
}

int real_cond_clockwait(pthread_cond_t* cond, pthread_mutex_t* mutex, clockid_t clock,
                        const timespec* abs) {
  static auto real = next<int (*)(pthread_cond_t*, pthread_mutex_t*, clockid_t, const timespec*)>(
      "pthread_cond_clockwait");
  return real(cond, mutex, clock, abs);
}

}  // namespace seer::client

extern "C" {

__attribute__((visibility("default"))) int pthread_cond_timedwait(pthread_cond_t* cond,
                                                                  pthread_mutex_t* mutex,
                                                                  const timespec* abs) {
  static auto real =
      next<int (*)(pthread_cond_t*, pthread_mutex_t*, const timespec*)>("pthread_cond_timedwait");
  const clockid_t clock = clock_of(cond);
  int rc = 0;
  {
    seer::client::HandoffWait wait(cond);
    if (missing(abs) || !active(clock)) {
      rc = real(cond, mutex, abs);
    } else {
      const timespec deadline = real_deadline(clock, abs);
      rc = real(cond, mutex, &deadline);
    }
  }
  seer::client::after_lock(mutex);
  return rc;
}

__attribute__((visibility("default"))) int pthread_cond_clockwait(pthread_cond_t* cond,
                                                                  pthread_mutex_t* mutex,
                                                                  clockid_t clock,
                                                                  const timespec* abs) {
  int rc = 0;
  {
    seer::client::HandoffWait wait(cond);
    if (missing(abs) || !active(clock)) {
      rc = seer::client::real_cond_clockwait(cond, mutex, clock, abs);
    } else {
      const timespec deadline = real_deadline(clock, abs);
      rc = seer::client::real_cond_clockwait(cond, mutex, clock, &deadline);
    }
  }
  seer::client::after_lock(mutex);
  return rc;
}

__attribute__((visibility("default"))) int sem_timedwait(sem_t* sem, const timespec* abs) {
  static auto real = next<int (*)(sem_t*, const timespec*)>("sem_timedwait");
  if (seer::client::sem_taken_at_once(sem)) return 0;
  seer::client::HandoffWait wait(sem);
  if (missing(abs) || !active(CLOCK_REALTIME)) return real(sem, abs);
  const timespec deadline = real_deadline(CLOCK_REALTIME, abs);
  return real(sem, &deadline);
}

__attribute__((visibility("default"))) int sem_clockwait(sem_t* sem, clockid_t clock,
                                                         const timespec* abs) {
  static auto real = next<int (*)(sem_t*, clockid_t, const timespec*)>("sem_clockwait");
  if (seer::client::sem_taken_at_once(sem)) return 0;
  seer::client::HandoffWait wait(sem);
  if (missing(abs) || !active(clock)) return real(sem, clock, abs);
  const timespec deadline = real_deadline(clock, abs);
  return real(sem, clock, &deadline);
}

__attribute__((visibility("default"))) int pthread_mutex_timedlock(pthread_mutex_t* mutex,
                                                                   const timespec* abs) {
  static auto real = next<int (*)(pthread_mutex_t*, const timespec*)>("pthread_mutex_timedlock");
  int rc = 0;
  if (missing(abs) || !active(CLOCK_REALTIME)) {
    rc = real(mutex, abs);
  } else {
    const timespec deadline = real_deadline(CLOCK_REALTIME, abs);
    rc = real(mutex, &deadline);
  }
  if (rc == 0) seer::client::after_lock(mutex);
  return rc;
}

__attribute__((visibility("default"))) int pthread_mutex_clocklock(pthread_mutex_t* mutex,
                                                                   clockid_t clock,
                                                                   const timespec* abs) {
  static auto real =
      next<int (*)(pthread_mutex_t*, clockid_t, const timespec*)>("pthread_mutex_clocklock");
  int rc = 0;
  if (missing(abs) || !active(clock)) {
    rc = real(mutex, clock, abs);
  } else {
    const timespec deadline = real_deadline(clock, abs);
    rc = real(mutex, clock, &deadline);
  }
  if (rc == 0) seer::client::after_lock(mutex);
  return rc;
}

// Relative sleeps and readiness waits keep real time; they only tell the core that the thread
// waited for something outside the simulation (see Core::note_host_wait).
__attribute__((visibility("default"))) int nanosleep(const timespec* request, timespec* remain) {
  static auto real = next<int (*)(const timespec*, timespec*)>("nanosleep");
  seer::client::OutsideWait wait;
  return real(request, remain);
}

__attribute__((visibility("default"))) int poll(pollfd* fds, nfds_t n, int timeout_ms) {
  seer::client::OutsideWait wait;
  return seer::client::real_poll(fds, n, timeout_ms);
}

__attribute__((visibility("default"))) int ppoll(pollfd* fds, nfds_t n, const timespec* timeout,
                                                 const sigset_t* mask) {
  static auto real = next<int (*)(pollfd*, nfds_t, const timespec*, const sigset_t*)>("ppoll");
  seer::client::OutsideWait wait;
  return real(fds, n, timeout, mask);
}

__attribute__((visibility("default"))) int select(int n, fd_set* r, fd_set* w, fd_set* e,
                                                  timeval* timeout) {
  static auto real = next<int (*)(int, fd_set*, fd_set*, fd_set*, timeval*)>("select");
  seer::client::OutsideWait wait;
  return real(n, r, w, e, timeout);
}

__attribute__((visibility("default"))) int epoll_wait(int epfd, epoll_event* events, int max,
                                                      int timeout_ms) {
  static auto real = next<int (*)(int, epoll_event*, int, int)>("epoll_wait");
  seer::client::OutsideWait wait;
  return real(epfd, events, max, timeout_ms);
}

__attribute__((visibility("default"))) int clock_nanosleep(clockid_t clock, int flags,
                                                           const timespec* request,
                                                           timespec* remain) {
  static auto real = next<int (*)(clockid_t, int, const timespec*, timespec*)>("clock_nanosleep");
  seer::client::OutsideWait wait;
  if (!(flags & TIMER_ABSTIME) || missing(request) || !active(clock)) {
    return real(clock, flags, request, remain);
  }
  const timespec deadline = real_deadline(clock, request);
  return real(clock, flags, &deadline, remain);
}

}  // extern "C"
