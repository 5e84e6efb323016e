// Virtual clocks: once the process has joined the simulation, wall and monotonic clocks read
// virtual time (the real time at which the process joined plus the virtual time since).
// CPU-time clocks stay real. Relative timed waits (nanosleep, poll) keep using the real clock;
// waits with an absolute virtual deadline are converted (timed_waits.cpp).

#include <sys/time.h>

#include <ctime>

#include "allocator_code.h"
#include "core.h"
#include "time_source.h"

namespace {

bool use_virtual(clockid_t c) {
  return seer::client::virtualized_clock(c) && seer::client::Core::virtual_time_active();
}

// glibc declares these pointers nonnull, but programs pass null anyway; hide the check from the
// optimizer so it is kept.
bool is_null(const void* p) {
  asm("" : "+r"(p));
  return p == nullptr;
}

void clear_timezone(void* tz) {
  if (is_null(tz)) return;
  auto* z = static_cast<struct timezone*>(tz);
  z->tz_minuteswest = 0;
  z->tz_dsttime = 0;
}

void fill(int64_t ns, timespec* ts) {
  ts->tv_sec = ns / 1000000000;
  ts->tv_nsec = ns % 1000000000;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int clock_gettime(clockid_t clock, timespec* ts) {
  if (is_null(ts) || !use_virtual(clock)) return seer::client::real_clock_gettime(clock, ts);
  // A malloc's own reads (jemalloc's decay timers) are not charged (allocator_code.h).
  auto& core = seer::client::Core::instance();
  fill(seer::client::in_allocator_code(__builtin_return_address(0))
           ? core.uncharged_clock_read_ns(clock)
           : core.clock_read_ns(clock),
       ts);
  return 0;
}

__attribute__((visibility("default"))) int gettimeofday(struct timeval* tv, void* tz) {
  if (!use_virtual(CLOCK_REALTIME)) {
    timespec ts{};
    seer::client::real_clock_gettime(CLOCK_REALTIME, &ts);
    if (!is_null(tv)) {
      tv->tv_sec = ts.tv_sec;
      tv->tv_usec = ts.tv_nsec / 1000;
    }
    clear_timezone(tz);
    return 0;
  }
  auto& core = seer::client::Core::instance();
  const int64_t ns = seer::client::in_allocator_code(__builtin_return_address(0))
                         ? core.uncharged_clock_read_ns(CLOCK_REALTIME)
                         : core.clock_read_ns(CLOCK_REALTIME);
  if (!is_null(tv)) {
    tv->tv_sec = ns / 1000000000;
    tv->tv_usec = (ns % 1000000000) / 1000;
  }
  clear_timezone(tz);
  return 0;
}

__attribute__((visibility("default"))) time_t time(time_t* out) {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  if (!is_null(out)) *out = ts.tv_sec;
  return ts.tv_sec;
}

__attribute__((visibility("default"))) int timespec_get(struct timespec* ts, int base) {
  if (base != TIME_UTC || is_null(ts)) return 0;
  clock_gettime(CLOCK_REALTIME, ts);
  return base;
}

}  // extern "C"
