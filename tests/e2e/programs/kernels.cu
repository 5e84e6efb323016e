// Kernel timing: launches of several geometries on one stream, timed by CUDA events (each
// kernel alone) and std::chrono (the whole sequence); a kernel on the legacy default stream
// timed by std::chrono around cudaDeviceSynchronize; cheap calls; raw clock reads; and a
// CPU-bound loop (which counts only in --host-time measured).
#include <sys/time.h>

#include <ctime>

#include "common.h"

__global__ void work(int tag) {}

struct Geometry {
  dim3 grid;
  dim3 block;
};

int main() {
  CHECK(cudaSetDevice(0));
  const Geometry geometries[] = {
      {dim3(1), dim3(1)},                // g0
      {dim3(65536), dim3(256)},          // g1
      {dim3(100, 100), dim3(32, 32)},    // g2
      {dim3(1000), dim3(1024)},          // g3
      {dim3(4225), dim3(64)},            // g4
      {dim3(7, 11, 13), dim3(8, 8, 2)},  // g5
      {dim3(42240), dim3(32)},           // g6
      {dim3(2773), dim3(96)},            // g7
      {dim3(264), dim3(1000)},           // g8
  };
  constexpr int kCount = sizeof geometries / sizeof geometries[0];
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  cudaEvent_t ev[kCount + 2];
  for (auto& e : ev) CHECK(cudaEventCreate(&e));
  CHECK(cudaDeviceSynchronize());

  // Phase 1: the blocker, then every geometry, each between two events.
  const int64_t t0 = now_ns();
  CHECK(cudaEventRecord(ev[0], s));
  blocker<<<kBlockerBlocks, kBlockerThreads, 0, s>>>();
  CHECK(cudaEventRecord(ev[1], s));
  for (int i = 0; i < kCount; ++i) {
    work<<<geometries[i].grid, geometries[i].block, 0, s>>>(i);
    CHECK(cudaEventRecord(ev[i + 2], s));
  }
  CHECK(cudaEventSynchronize(ev[kCount + 1]));
  const int64_t t1 = now_ns();
  result_int("phase1_chrono_ns", t1 - t0);
  result_ms("blocker_ms", elapsed_ms(ev[0], ev[1]));
  for (int i = 0; i < kCount; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "g%d_ms", i);
    result_ms(name, elapsed_ms(ev[i + 1], ev[i + 2]));
  }
  result_ms("all_ms", elapsed_ms(ev[0], ev[kCount + 1]));
  result_ms("same_event_ms", elapsed_ms(ev[3], ev[3]));

  // Phase 2: legacy default stream, host waits in cudaDeviceSynchronize.
  const int64_t t2 = now_ns();
  work<<<65536, 256>>>(100);
  CHECK(cudaDeviceSynchronize());
  const int64_t t3 = now_ns();
  result_int("phase2_chrono_ns", t3 - t2);

  // Phase 3: synchronizing and querying an idle stream returns at once.
  const int64_t t4 = now_ns();
  CHECK(cudaStreamSynchronize(s));
  const int64_t t5 = now_ns();
  const cudaError_t q = cudaStreamQuery(s);
  const int64_t t6 = now_ns();
  result_int("idle_sync_ns", t5 - t4);
  result_int("idle_query_rc", q);
  result_int("idle_query_ns", t6 - t5);

  // Phase 4: raw clock reads. Each read advances the thread by a small quantum.
  timespec a{}, b{}, c{}, d{};
  clock_gettime(CLOCK_MONOTONIC, &a);
  clock_gettime(CLOCK_MONOTONIC, &b);
  result_int("monotonic_step_ns", (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec));
  clock_gettime(CLOCK_REALTIME, &c);
  for (int i = 0; i < 999; ++i) clock_gettime(CLOCK_MONOTONIC_RAW, &d);
  clock_gettime(CLOCK_REALTIME, &d);
  result_int("thousand_reads_ns", (d.tv_sec - c.tv_sec) * 1000000000LL + (d.tv_nsec - c.tv_nsec));
  result_int("realtime_s", c.tv_sec);
  timeval tv{};
  gettimeofday(&tv, nullptr);
  result_int("gettimeofday_s", tv.tv_sec);
  result_int("time_s", static_cast<long long>(time(nullptr)));

  // Phase 5: about 20 ms of real CPU work between two clock reads (CPU-time clocks stay real).
  timespec cpu0{}, cpu1{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu0);
  const int64_t t7 = now_ns();
  volatile unsigned long long sink = 0;
  for (;;) {
    for (int i = 0; i < 100000; ++i) sink = sink + static_cast<unsigned long long>(i) * 7;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu1);
    if ((cpu1.tv_sec - cpu0.tv_sec) * 1000000000LL + (cpu1.tv_nsec - cpu0.tv_nsec) >= 20000000) {
      break;
    }
  }
  const int64_t t8 = now_ns();
  result_int("spin_cpu_ns",
             (cpu1.tv_sec - cpu0.tv_sec) * 1000000000LL + (cpu1.tv_nsec - cpu0.tv_nsec));
  result_int("spin_chrono_ns", t8 - t7);

  // Phase 6: the launch APIs behave like <<<>>>.
  {
    int tag = 200;
    void* args[] = {&tag};
    const int64_t a = now_ns();
    CHECK(
        cudaLaunchKernel(reinterpret_cast<const void*>(&work), dim3(65536), dim3(256), args, 0, s));
    CHECK(cudaStreamSynchronize(s));
    const int64_t b = now_ns();
    result_int("launch_api_ns", b - a);
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(65536);
    config.blockDim = dim3(256);
    config.stream = s;
    const int64_t c = now_ns();
    CHECK(cudaLaunchKernelExC(&config, reinterpret_cast<const void*>(&work), args));
    CHECK(cudaStreamSynchronize(s));
    const int64_t d = now_ns();
    result_int("launch_ex_ns", d - c);
  }

  for (auto& e : ev) CHECK(cudaEventDestroy(e));
  CHECK(cudaStreamDestroy(s));
  return 0;
}
