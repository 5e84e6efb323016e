#pragma once

#include <cstdint>

namespace seer::client {

// This thread's CPU time in ns, as CLOCK_THREAD_CPUTIME_ID counts it, usually without a system
// call (that clock has no vDSO path and costs ~0.9-1.4 us per read in a VM, which measured host
// time would then charge to the program on every CUDA call).
//
// A per-thread perf event (PERF_COUNT_SW_DUMMY, mapped read-only) exposes a sequence number that
// the kernel bumps whenever the thread is scheduled in or out. While it is unchanged since the
// previous read, the thread has been on its CPU the whole time, so CPU time advanced by the wall
// time the TSC shows. When it changed (the thread blocked, was preempted or migrated), when the
// TSC rate is not yet calibrated, or when perf events are unavailable (perf_event_paranoid 3,
// container seccomp), the system call answers. THREAD_CPU_CLOCK.md has the measurements.
int64_t thread_cpu_ns();

// Called in a forked child: the parent's per-thread events do not describe the child's thread.
void thread_cpu_clock_at_fork_child();

}  // namespace seer::client
