#include "thread_cpu_clock.h"

#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <x86intrin.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

#include "time_source.h"

namespace seer::client {
namespace {

// TSC ticks per ns, calibrated once per process against CLOCK_MONOTONIC_RAW over >= 20 ms.
constexpr int64_t kCalibrationNs = 20'000'000;
std::atomic<double> g_ns_per_tick{0.0};
std::atomic<bool> g_disabled{false};
int64_t g_calibration_ns = 0;
uint64_t g_calibration_tsc = 0;
std::atomic<bool> g_calibration_started{false};

// Trivially destructible, so it stays usable after the thread's TLS destructors have run (the
// main thread's run inside exit(), before atexit handlers that may still make CUDA calls).
struct ThreadClock {
  bool initialized = false;
  volatile perf_event_mmap_page* page = nullptr;
  uint32_t seq = 0;
  uint64_t tsc = 0;
  int64_t cpu = 0;
};
thread_local ThreadClock tl_clock;

void unmap(ThreadClock& c) {
  if (c.page) {
    munmap(const_cast<perf_event_mmap_page*>(c.page), static_cast<size_t>(sysconf(_SC_PAGESIZE)));
  }
  c.page = nullptr;
}

// Unmaps the thread's page when the thread ends; later reads take the system call.
struct Unmapper {
  ~Unmapper() {
    unmap(tl_clock);
    tl_clock.initialized = true;
  }
};
thread_local Unmapper tl_unmapper;

bool fast_path_wanted() {
  static const bool wanted = [] {
    const char* v = std::getenv("SEER_THREAD_CPU_CLOCK");
    return !(v && std::strcmp(v, "syscall") == 0);
  }();
  return wanted;
}

void open_page(ThreadClock& c) {
  c.initialized = true;
  if (!fast_path_wanted() || g_disabled.load(std::memory_order_relaxed)) return;
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_DUMMY;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  const int fd =
      static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC));
  if (fd < 0) {
    g_disabled.store(true, std::memory_order_relaxed);  // the same answer for every thread
    return;
  }
  void* p = mmap(nullptr, static_cast<size_t>(sysconf(_SC_PAGESIZE)), PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);  // the mapping keeps the event
  if (p == MAP_FAILED) {
    g_disabled.store(true, std::memory_order_relaxed);
    return;
  }
  c.page = static_cast<volatile perf_event_mmap_page*>(p);
  (void)&tl_unmapper;  // constructs it, so its destructor runs at thread exit
}

void calibrate(uint64_t tsc, int64_t raw_ns) {
  if (!g_calibration_started.exchange(true)) {
    g_calibration_tsc = tsc;
    std::atomic_thread_fence(std::memory_order_release);
    g_calibration_ns = raw_ns;
    return;
  }
  const int64_t start = g_calibration_ns;
  std::atomic_thread_fence(std::memory_order_acquire);
  if (start == 0 || raw_ns - start < kCalibrationNs || tsc <= g_calibration_tsc) return;
  g_ns_per_tick.store(
      static_cast<double>(raw_ns - start) / static_cast<double>(tsc - g_calibration_tsc),
      std::memory_order_relaxed);
}

// The system call, recording where the fast path may resume from.
int64_t slow(ThreadClock& c) {
  const uint32_t before = c.page ? c.page->lock : 0;
  // Never below what this thread was told last: the TSC can run ahead of the CPU clock (e.g.
  // while the hypervisor runs another guest), and time must not go backwards.
  const int64_t cpu = std::max(real_clock_ns(CLOCK_THREAD_CPUTIME_ID), c.cpu);
  const uint64_t tsc = __rdtsc();
  if (c.page) {
    const uint32_t after = c.page->lock;
    // A switch between the two reads leaves the mark unusable: the next read takes this path.
    c.seq = before == after ? after : after - 1;
    c.tsc = tsc;
    c.cpu = cpu;
    if (g_ns_per_tick.load(std::memory_order_relaxed) == 0.0) {
      calibrate(tsc, real_clock_ns(CLOCK_MONOTONIC_RAW));
    }
  }
  return cpu;
}

}  // namespace

int64_t thread_cpu_ns() {
  ThreadClock& c = tl_clock;
  if (!c.initialized) open_page(c);
  if (!c.page) return real_clock_ns(CLOCK_THREAD_CPUTIME_ID);
  const double ns_per_tick = g_ns_per_tick.load(std::memory_order_relaxed);
  const uint32_t before = c.page->lock;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  const uint64_t tsc = __rdtsc();
  std::atomic_signal_fence(std::memory_order_seq_cst);
  const uint32_t after = c.page->lock;
  if (ns_per_tick == 0.0 || before != after || before != c.seq || tsc < c.tsc) return slow(c);
  const int64_t cpu = c.cpu + static_cast<int64_t>(static_cast<double>(tsc - c.tsc) * ns_per_tick);
  c.tsc = tsc;
  c.cpu = cpu;
  return cpu;
}

void thread_cpu_clock_at_fork_child() {
  // The mapping belongs to the parent's thread: drop the child's copy.
  unmap(tl_clock);
  tl_clock.initialized = false;
}

}  // namespace seer::client
