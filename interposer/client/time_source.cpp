#include "time_source.h"

#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace seer::client {
namespace {

using ClockGettime = int (*)(clockid_t, timespec*);

ClockGettime resolve() {
  static ClockGettime fn = reinterpret_cast<ClockGettime>(dlsym(RTLD_NEXT, "clock_gettime"));
  return fn;
}

}  // namespace

int real_clock_gettime(clockid_t clock, timespec* ts) {
  if (ClockGettime fn = resolve()) return fn(clock, ts);
  return static_cast<int>(syscall(SYS_clock_gettime, clock, ts));
}

int64_t real_clock_ns(clockid_t clock) {
  timespec ts{};
  real_clock_gettime(clock, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

}  // namespace seer::client
