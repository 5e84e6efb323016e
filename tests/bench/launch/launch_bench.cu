// Launch-path benchmark: the real (host) cost of one <<<>>> launch under Seer. Timed with the
// raw clock_gettime system call, which Seer's clock virtualization does not intercept. Also the
// cost of a mutex lock and unlock by a submitting thread, which Seer interposes to pass virtual
// time between threads (interposer/client/thread_handoff.cpp), against glibc's own functions.
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

__global__ void empty_kernel() {}

static double raw_ns(clockid_t clock) {
  timespec ts;
  syscall(SYS_clock_gettime, clock, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}
static double real_ns() { return raw_ns(CLOCK_MONOTONIC); }
static double cpu_ns() { return raw_ns(CLOCK_THREAD_CPUTIME_ID); }

static double mutex_pair_ns(long n, bool interposed) {
  // libc's own definitions, looked up in libc itself: not interposed.
  using Fn = int (*)(pthread_mutex_t*);
  void* libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
  const auto glibc_lock = reinterpret_cast<Fn>(dlsym(libc, "pthread_mutex_lock"));
  const auto glibc_unlock = reinterpret_cast<Fn>(dlsym(libc, "pthread_mutex_unlock"));
  pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  const double c0 = cpu_ns();
  for (long i = 0; i < n; ++i) {
    if (interposed) {
      pthread_mutex_lock(&m);
      pthread_mutex_unlock(&m);
    } else {
      glibc_lock(&m);
      glibc_unlock(&m);
    }
  }
  return (cpu_ns() - c0) / n;
}

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 1000000;
  cudaStream_t s;
  cudaStreamCreate(&s);
  for (int i = 0; i < 1000; ++i) empty_kernel<<<1, 32, 0, s>>>();  // warm-up: joins, registers
  cudaStreamSynchronize(s);
  const double t0 = real_ns();
  const double c0 = cpu_ns();
  for (long i = 0; i < n; ++i) empty_kernel<<<1, 32, 0, s>>>();
  const double c1 = cpu_ns();
  const double t1 = real_ns();
  cudaStreamSynchronize(s);
  const double t2 = real_ns();
  std::printf("launches          %ld\n", n);
  std::printf("launch path       %.1f ns CPU per <<<>>> launch (calling thread, in-process)\n",
              (c1 - c0) / n);
  std::printf("launch loop       %.1f ns wall per launch (includes waiting for the session)\n",
              (t1 - t0) / n);
  std::printf("until simulated   %.1f ns per launch including the session simulating it\n",
              (t2 - t0) / n);
  const double plain = mutex_pair_ns(n, false);
  const double interposed = mutex_pair_ns(n, true);
  std::printf("mutex lock+unlock %.1f ns CPU per pair (glibc's own: %.1f ns)\n", interposed, plain);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
