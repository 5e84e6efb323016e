// The fast thread CPU clock agrees with CLOCK_THREAD_CPUTIME_ID: it counts a busy thread's time,
// not a sleeping or blocked one's, never goes backwards, and stays right across threads. Where
// perf events are unavailable the clock is the system call itself, and the same checks hold.

#include "thread_cpu_clock.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <ctime>
#include <thread>

namespace {

int64_t syscall_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Spins for `ns` of this thread's CPU time, reading the fast clock as a CUDA call would.
void spin(int64_t ns) {
  const int64_t end = syscall_cpu_ns() + ns;
  volatile uint64_t x = 0;
  while (syscall_cpu_ns() < end) {
    for (int i = 0; i < 2000; ++i) x = x + static_cast<uint64_t>(i);
    seer::client::thread_cpu_ns();
  }
}

TEST(ThreadCpuClock, CountsBusyTimeLikeTheSystemClock) {
  spin(30'000'000);  // past the TSC calibration
  const int64_t fast0 = seer::client::thread_cpu_ns();
  const int64_t sys0 = syscall_cpu_ns();
  spin(100'000'000);
  const int64_t fast = seer::client::thread_cpu_ns() - fast0;
  const int64_t sys = syscall_cpu_ns() - sys0;
  EXPECT_NEAR(static_cast<double>(fast), static_cast<double>(sys), 0.02 * static_cast<double>(sys))
      << "fast " << fast << " ns, system " << sys << " ns";
}

TEST(ThreadCpuClock, SleepIsNotCpuTime) {
  spin(30'000'000);
  const int64_t before = seer::client::thread_cpu_ns();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const int64_t slept = seer::client::thread_cpu_ns() - before;
  EXPECT_LT(slept, 5'000'000) << slept << " ns counted over a 100 ms sleep";
}

TEST(ThreadCpuClock, NeverGoesBackwardsAndIsPerThread) {
  int64_t last = seer::client::thread_cpu_ns();
  for (int i = 0; i < 200000; ++i) {
    const int64_t now = seer::client::thread_cpu_ns();
    ASSERT_GE(now, last);
    last = now;
  }
  int64_t other_start = -1, other_spent = -1;
  std::thread t([&] {
    other_start = seer::client::thread_cpu_ns();
    spin(20'000'000);
    other_spent = seer::client::thread_cpu_ns() - other_start;
  });
  t.join();
  EXPECT_LT(other_start, 20'000'000);  // a new thread starts near zero, not at this one's time
  EXPECT_GE(other_spent, 19'000'000);
}

// A thread-local object constructed before the clock's own (so destroyed after it, as the main
// thread's statics are after exit()'s TLS destructors) still reads the clock while the thread
// ends: PyTorch's autograd engine reads std::chrono in its destructor at exit.
std::atomic<int64_t> g_read_at_exit{-1};

TEST(ThreadCpuClock, ReadableAfterTheThreadsOwnTlsDestructors) {
  std::thread t([] {
    struct Publisher {
      ~Publisher() { g_read_at_exit.store(seer::client::thread_cpu_ns()); }
    };
    thread_local Publisher p;
    (void)&p;
    spin(30'000'000);  // maps the page and calibrates
    seer::client::thread_cpu_ns();
  });
  t.join();
  EXPECT_GT(g_read_at_exit.load(), 0);
}

}  // namespace
