#pragma once

#include <poll.h>
#include <pthread.h>

#include <cstdint>
#include <ctime>

namespace seer::client {

// The clocks Seer virtualizes once a process has joined (wall, monotonic and boot time); CPU-time
// clocks stay real.
inline bool virtualized_clock(clockid_t c) {
  switch (c) {
    case CLOCK_REALTIME:
    case CLOCK_MONOTONIC:
    case CLOCK_MONOTONIC_RAW:
    case CLOCK_REALTIME_COARSE:
    case CLOCK_MONOTONIC_COARSE:
    case CLOCK_BOOTTIME:
      return true;
    default:
      return false;
  }
}

// Real clocks, read without going through our own clock_gettime interposer.
int64_t real_clock_ns(clockid_t clock);
inline int64_t real_monotonic_ns() { return real_clock_ns(CLOCK_MONOTONIC); }
// The libc implementation of clock_gettime (resolved with RTLD_NEXT).
int real_clock_gettime(clockid_t clock, timespec* ts);
// libc's poll, for Seer's own socket checks (timed_waits.cpp interposes the public one).
int real_poll(pollfd* fds, nfds_t n, int timeout_ms);
// libc's pthread_cond_clockwait, for Seer's own waits on real deadlines (timed_waits.cpp
// interposes the public one).
int real_cond_clockwait(pthread_cond_t* cond, pthread_mutex_t* mutex, clockid_t clock,
                        const timespec* abs);

}  // namespace seer::client
