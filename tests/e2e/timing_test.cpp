// The programs' own clocks (CUDA events, std::chrono, clock_gettime, Python's perf_counter) must
// read exactly the times the documented models give (simcore/README.md), in --host-time modeled.
// Every expectation is computed here from the formulas; comments show the arithmetic.

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "e2e_util.h"

namespace seer::e2e {
namespace {

using namespace model;

constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t k64MiB = 64 * kMiB;

// The realtime clock shows the date at which the process joined plus virtual time: "dates look
// right". Compare with this (unsimulated) test process's clock.
void expect_plausible_date(const Outcome& o, const std::string& name) {
  const long long now_s = std::chrono::duration_cast<std::chrono::seconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
  EXPECT_NEAR(static_cast<double>(o.integer(name)), static_cast<double>(now_s), 86400.0) << name;
}

// ---------------------------------------------------------------------------------------------
// Kernels: the generic model for every geometry, and the host clock around launches and syncs.

struct KernelCase {
  const char* cluster;
  Gpu gpu;
};

void PrintTo(const KernelCase& c, std::ostream* os) { *os << c.cluster; }

class KernelTiming : public ::testing::TestWithParam<KernelCase> {};

TEST_P(KernelTiming, EventsAndChronoFollowTheGenericModel) {
  const KernelCase& c = GetParam();
  const Gpu& g = c.gpu;
  TempDir dir;
  const Outcome o = seer_run(c.cluster, dir.file("out"), {program("kernels")});
  ASSERT_EQ(o.exit_code, 0) << o.describe();

  // The geometries of programs/kernels.cu, in order.
  const int64_t geometries[][6] = {
      {1, 1, 1, 1, 1, 1},       {65536, 1, 1, 256, 1, 1}, {100, 100, 1, 32, 32, 1},
      {1000, 1, 1, 1024, 1, 1}, {4225, 1, 1, 64, 1, 1},   {7, 11, 13, 8, 8, 2},
      {42240, 1, 1, 32, 1, 1},  {2773, 1, 1, 96, 1, 1},   {264, 1, 1, 1000, 1, 1},
  };
  int64_t sum = 0;
  for (int i = 0; i < 9; ++i) {
    const auto& x = geometries[i];
    const int64_t d = kernel_ns(g, x[0], x[1], x[2], x[3], x[4], x[5]);
    // The GPU runs behind the blocker, so the events around each kernel bracket it exactly.
    // append, not "g" + string: GCC 12 at -O3 reports a false -Wrestrict for the latter.
    expect_event_ms(o, std::string("g").append(std::to_string(i)).append("_ms"), d);
    sum += d;
  }
  const int64_t blocker = kernel_ns(g, 132 * 32 * 1000, 32);
  // Event 0 is recorded on the idle stream at the host's clock; the blocker is submitted (and
  // starts) one launch cost later.
  expect_event_ms(o, "blocker_ms", kLaunch + blocker);
  expect_event_ms(o, "all_ms", kLaunch + blocker + sum);
  expect_event_ms(o, "same_event_ms", 0);

  // t0, record (500), launch (2000: the blocker starts), record, 9 x (launch + record), then
  // cudaEventSynchronize finds the GPU busy: it returns 1000 after the last kernel ends; t1
  // reads the clock (20).
  expect_ns(o, "phase1_chrono_ns",
            kEventRecord + kLaunch + blocker + sum + kSyncReturn + kClockRead);
  // t2, launch on the idle legacy default stream (starts at once), cudaDeviceSynchronize waits
  // for it, + sync return, t3.
  expect_ns(o, "phase2_chrono_ns", kLaunch + kernel_ns(g, 65536, 256) + kSyncReturn + kClockRead);
  // Nothing to wait for: the call's cost and the clock read.
  expect_ns(o, "idle_sync_ns", kOtherCall + kClockRead);
  EXPECT_EQ(o.integer("idle_query_rc"), 0);
  expect_ns(o, "idle_query_ns", kQuery + kClockRead);
  // Raw clock reads advance the thread by 20 ns each.
  expect_ns(o, "monotonic_step_ns", kClockRead);
  expect_ns(o, "thousand_reads_ns", 1000 * kClockRead);
  expect_plausible_date(o, "realtime_s");
  expect_plausible_date(o, "gettimeofday_s");
  expect_plausible_date(o, "time_s");
  // Modeled host time ignores CPU time: 20 ms of spinning cost only the second clock read.
  EXPECT_GE(o.integer("spin_cpu_ns"), 20'000'000);
  expect_ns(o, "spin_chrono_ns", kClockRead);
  // cudaLaunchKernel and cudaLaunchKernelExC cost and behave like <<<>>>: read, launch on the
  // idle stream, cudaStreamSynchronize returns 1000 after the kernel, read.
  expect_ns(o, "launch_api_ns", kLaunch + kernel_ns(g, 65536, 256) + kSyncReturn + kClockRead);
  expect_ns(o, "launch_ex_ns", kLaunch + kernel_ns(g, 65536, 256) + kSyncReturn + kClockRead);
}

INSTANTIATE_TEST_SUITE_P(Presets, KernelTiming,
                         ::testing::Values(KernelCase{"dgx-h100", kH100},
                                           KernelCase{"dgx-a100", kA100}),
                         [](const auto& info) {
                           std::string n = info.param.cluster;
                           for (char& ch : n) {
                             if (ch == '-') ch = '_';
                           }
                           return n;
                         });

TEST(ModelArithmetic, MatchesTheReadmeExamples) {
  // simcore/README.md: 65,536 blocks of 256 threads on an H100 -> 63 waves -> 96,500 ns.
  EXPECT_EQ(kernel_ns(kH100, 65536, 256), 96500);
  // 100 x 100 blocks of 32 x 32: 2 blocks/SM, 264 per wave, ceil(10000 / 264) = 38 waves.
  EXPECT_EQ(kernel_ns(kH100, 100, 100, 1, 32, 32, 1), 2000 + 1500 * 38);
  // 96 threads: floor(2048 / 96) = 21 blocks/SM, 2772 per wave: 2773 blocks need 2 waves.
  EXPECT_EQ(kernel_ns(kH100, 2773, 96), 2000 + 1500 * 2);
  // 64 threads: 32 blocks/SM (the block limit), 4224 per wave.
  EXPECT_EQ(kernel_ns(kH100, 4225, 64), 2000 + 1500 * 2);
  // A100, 108 SMs: 65536 x 256 -> 864 per wave -> 76 waves.
  EXPECT_EQ(kernel_ns(kA100, 65536, 256), 2000 + 1500 * 76);
  // 64 MiB pinned over 55 GB/s + 2 us: 2000 + ceil(67108864 / 55) = 2000 + 1220162.
  EXPECT_EQ(h2d_pinned_ns(kDgxH100, k64MiB), 1222162);
  // Pageable at half the bandwidth: 2000 + ceil(67108864 / 27.5).
  EXPECT_EQ(h2d_pageable_ns(kDgxH100, k64MiB), 2442323);
  // D2D: 1000 + ceil(2 * 67108864 / 3015) (3.35 TB/s * 0.9 = 3015 B/ns).
  EXPECT_EQ(d2d_ns(kH100, k64MiB), 45517);
  EXPECT_EQ(memset_ns(kH100, k64MiB), 23259);
  EXPECT_EQ(peer_same_node_ns(kDgxH100, k64MiB), 150131);
  EXPECT_EQ(h2h_ns(kMiB), 104858);
  EXPECT_EQ(blocker_ns(), 1502000);
}

// ---------------------------------------------------------------------------------------------
// Copies.

// The blocking copies of programs/copies.cu, timed by std::chrono with the GPU idle: the call
// cost, the copy (it starts at once), the sync return, the second clock read.
int64_t blocking_copy(int64_t copy_ns) { return kMemcpySync + copy_ns + kSyncReturn + kClockRead; }

void expect_copies(const Outcome& o, const Gpu& g, const Links& l) {
  // Event pairs around single ops on the legacy default stream, behind the blocker.
  expect_event_ms(o, "h2d_pinned_ms", h2d_pinned_ns(l, k64MiB));
  expect_event_ms(o, "h2d_pageable_ms", h2d_pageable_ns(l, k64MiB));
  expect_event_ms(o, "d2h_pinned_ms", h2d_pinned_ns(l, k64MiB));
  expect_event_ms(o, "d2h_pageable_ms", h2d_pageable_ns(l, k64MiB));
  expect_event_ms(o, "d2d_ms", d2d_ns(g, k64MiB));
  expect_event_ms(o, "memset_ms", memset_ns(g, k64MiB));
  expect_event_ms(o, "default_d2d_ms", d2d_ns(g, k64MiB));

  expect_ns(o, "sync_h2d_pinned_ns", blocking_copy(h2d_pinned_ns(l, k64MiB)));
  expect_ns(o, "sync_h2d_pageable_ns", blocking_copy(h2d_pageable_ns(l, k64MiB)));
  expect_ns(o, "sync_d2h_pinned_ns", blocking_copy(h2d_pinned_ns(l, k64MiB)));
  expect_ns(o, "sync_d2h_pageable_ns", blocking_copy(h2d_pageable_ns(l, k64MiB)));
  expect_ns(o, "sync_h2d_default_pinned_ns", blocking_copy(h2d_pinned_ns(l, k64MiB)));
  expect_ns(o, "sync_h2d_1byte_ns", blocking_copy(h2d_pinned_ns(l, 1)));
  expect_ns(o, "sync_h2d_55e6_ns", blocking_copy(h2d_pinned_ns(l, 55'000'000)));
  expect_ns(o, "sync_h2h_1mib_ns", blocking_copy(h2h_ns(kMiB)));
  // cudaHostRegister makes pageable memory pinned; cudaHostUnregister undoes it.
  expect_ns(o, "sync_h2d_registered_ns", blocking_copy(h2d_pinned_ns(l, k64MiB)));
  expect_ns(o, "sync_h2d_unregistered_ns", blocking_copy(h2d_pageable_ns(l, k64MiB)));
  // Device-to-device, memset and peer calls return without waiting: t0, inner read (20), call,
  // inner read; then cudaDeviceSynchronize waits for the op and t1 reads the clock.
  expect_ns(o, "sync_d2d_return_ns", kMemcpySync + kClockRead);
  expect_ns(o, "sync_d2d_total_ns",
            kClockRead + kMemcpySync + d2d_ns(g, k64MiB) + kSyncReturn + kClockRead);
  expect_ns(o, "sync_memset_return_ns", kMemcpyAsync + kClockRead);
  expect_ns(o, "sync_memset_total_ns",
            kClockRead + kMemcpyAsync + memset_ns(g, k64MiB) + kSyncReturn + kClockRead);
  expect_ns(o, "sync_peer_return_ns", kMemcpySync + kClockRead);
  // Zero bytes: only the call.
  expect_ns(o, "sync_zero_bytes_ns", kMemcpySync + kClockRead);
  // Device-to-host copies write zeros.
  EXPECT_EQ(o.integer("d2h_nonzero_bytes"), 0);
}

TEST(CopyTiming, DgxH100) {
  TempDir dir;
  const Outcome o = seer_run("dgx-h100", dir.file("out"), {program("copies"), "1"});
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  expect_copies(o, kH100, kDgxH100);
  // Spot checks of the arithmetic: 55e6 B at 55 GB/s is exactly 1 ms.
  expect_ns(o, "sync_h2d_55e6_ns", 3000 + (2000 + 1'000'000) + 1000 + 20);
  expect_ns(o, "sync_h2d_1byte_ns", 3000 + (2000 + 1) + 1000 + 20);
  // GPU 0 -> GPU 1 over NVSwitch: 1 us + 64 MiB / 450 GB/s.
  expect_event_ms(o, "peer_1_ms", peer_same_node_ns(kDgxH100, k64MiB));
  expect_ns(
      o, "sync_peer_total_ns",
      kClockRead + kMemcpySync + peer_same_node_ns(kDgxH100, k64MiB) + kSyncReturn + kClockRead);
}

TEST(CopyTiming, TestFabricPeerCopiesWithinAndAcrossNodes) {
  // test-fabric: 2 nodes x 2 H100; GPU 1 shares GPU 0's node, GPU 2 is on the other node.
  TempDir dir;
  const Outcome o = seer_run("test-fabric", dir.file("out"), {program("copies"), "1", "2"});
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  expect_copies(o, kH100, kTestFabric);
  // 1 us + ceil(67108864 / 400) = 1000 + 167773.
  expect_event_ms(o, "peer_1_ms", 1000 + 167773);
  // Other node: 2 * 2 us + ceil(67108864 / 50) = 4000 + 1342178.
  expect_event_ms(o, "peer_2_ms", 4000 + 1342178);
  EXPECT_EQ(peer_other_node_ns(kTestFabric, k64MiB), 4000 + 1342178);
  // 55e6 B at 50 GB/s: 1.1 ms exactly.
  expect_ns(o, "sync_h2d_55e6_ns", 3000 + (2000 + 1'100'000) + 1000 + 20);
}

TEST(CopyTiming, CustomClusterFile) {
  // A cluster file written here: A100s, a slow host link with a low pageable factor, a slow
  // scale-up fabric. Every figure must follow the file.
  TempDir dir;
  write_file(dir.file("cluster.yaml"),
             "schema: 1\n"
             "name: my-lab\n"
             "nodes: 1\n"
             "node:\n"
             "  gpu: A100-SXM-80GB\n"
             "  gpus: 2\n"
             "  host_link:\n"
             "    bandwidth: 10GB/s\n"
             "    latency: 5us\n"
             "    pageable_factor: 0.25\n"
             "  scale_up:\n"
             "    kind: nvlink-mesh\n"
             "    bandwidth: 100GB/s\n"
             "    latency: 3us\n");
  const Outcome o = seer_run(dir.file("cluster.yaml"), dir.file("out"), {program("copies"), "1"});
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  const Links lab{10'000'000'000, 5000, 1, 4, 100'000'000'000, 3000};
  expect_copies(o, kA100, lab);
  // 5 us + ceil(67108864 / 10) and 5 us + ceil(67108864 / 2.5).
  expect_event_ms(o, "h2d_pinned_ms", 5000 + 6710887);
  expect_event_ms(o, "h2d_pageable_ms", 5000 + 26843546);
  // A100 HBM: 2.039 TB/s * 0.9 = 1835.1 B/ns; 1000 + ceil(2 * 67108864 / 1835.1) = 1000 + 73140.
  expect_event_ms(o, "d2d_ms", 1000 + 73140);
  expect_event_ms(o, "peer_1_ms", 3000 + 671089);
  const nlohmann::json s = read_json(dir.file("out/summary.json"));
  EXPECT_EQ(s["cluster"]["name"], "my-lab");
  EXPECT_EQ(s["cluster"]["gpus_per_node"], 2);
  EXPECT_EQ(s["cluster"]["gpu"], "A100-SXM-80GB");
}

// ---------------------------------------------------------------------------------------------
// Streams: dependencies, legacy default stream, engine order, polling.

TEST(StreamTiming, DependenciesAndDefaultStreamSemantics) {
  TempDir dir;
  const Outcome o = seer_run("dgx-h100", dir.file("out"), {program("streams")});
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  const int64_t k = blocker_ns();                     // 1502000
  const int64_t c = h2d_pinned_ns(kDgxH100, k64MiB);  // 1222162 (also the D2H)

  // S1: e0 on s1 (t), kernel on s1 (t+2000), record ev, s2 waits ev, copy on s2: it starts when
  // the kernel ends. e2 after the copy.
  expect_event_ms(o, "s1_ms", kLaunch + k + c);
  // t0, record (500), launch (2000), record (500), wait (500), copy (2000), record (500),
  // cudaStreamSynchronize (200) waits: returns 1000 after the copy ends; t1 (20).
  expect_ns(o, "s1_chrono_ns", kEventRecord + kLaunch + k + c + kSyncReturn + kClockRead);
  // S2: no wait: the copy (submitted at t+4000) overlaps the kernel.
  expect_event_ms(o, "s2_kernel_ms", kLaunch + k);
  expect_event_ms(o, "s2_copy_ms", kLaunch + kMemcpyAsync + c);
  // S3: a copy on the legacy default stream waits for the kernel on blocking stream s1; a D2H
  // on blocking stream s2 waits for the legacy default stream's copy.
  expect_event_ms(o, "s3_legacy_ms", kLaunch + k + c);
  expect_event_ms(o, "s3_after_legacy_ms", kLaunch + k + c + c);
  // S4: the kernel is on a non-blocking stream: the legacy copy does not wait for it.
  expect_event_ms(o, "s4_nonblocking_ms", kLaunch + kMemcpyAsync + c);
  // S5: e0 on s3 (t), ev on s2 (t+500, completes at once), s3 waits ev (t+1000), kernel on s1
  // (t+3000), ev re-recorded on s1 (t+3500), copy on s3 (t+5500): it waits only for the first
  // record of ev, so it starts at once.
  expect_event_ms(o, "s5_earlier_record_ms",
                  kEventRecord + kStreamWait + kLaunch + kEventRecord + kMemcpyAsync + c);
  // S6: two copies wait for the same kernel; the one submitted first runs first.
  expect_event_ms(o, "s6_first_ms", kLaunch + k + c);
  expect_event_ms(o, "s6_second_ms", kLaunch + k + c + c);
  // S7: t0, launch (2000: the kernel ends at t0 + 2000 + k), then cudaStreamQuery every 300 ns
  // of host time: query number q sees clock t0 + 2000 + 300 q and succeeds once that reaches
  // the end of the kernel: q = ceil(k / 300) = 5007, so 5006 answers cudaErrorNotReady.
  const int64_t q7 = (k + kQuery - 1) / kQuery;
  EXPECT_EQ(o.integer("s7_rc"), 0);
  EXPECT_EQ(o.integer("s7_not_ready"), q7 - 1);
  expect_ns(o, "s7_chrono_ns", kLaunch + q7 * kQuery + kClockRead);
  // S8: t0, launch, record (500), cudaEventQuery every 300 ns: query q sees t0 + 2500 + 300 q;
  // the event completes at t0 + 2000 + k, exactly at query 5005's clock. A query sees work that
  // completed before its clock (the session simulates up to it, not the instant itself:
  // interposer/client/THREADS.md, "Queries"), so query 5006 is the first to succeed.
  const int64_t q8 = (k - kEventRecord) / kQuery + 1;
  EXPECT_EQ((k - kEventRecord) % kQuery, 0);
  EXPECT_EQ(q8, 5006);
  EXPECT_EQ(o.integer("s8_rc"), 0);
  EXPECT_EQ(o.integer("s8_not_ready"), q8 - 1);
  expect_ns(o, "s8_chrono_ns", kLaunch + kEventRecord + q8 * kQuery + kClockRead);
  // S9: waiting for a never-recorded event is a no-op: e0 (t), wait (t+500), copy (t+2500).
  expect_event_ms(o, "s9_unrecorded_wait_ms", kStreamWait + kMemcpyAsync + c);
  // S10: t0, kernel on GPU 0 (starts at t0+2000), cudaSetDevice(1) (200), kernel on GPU 1
  // (starts at t0+4200: GPU 1's compute engine is its own), cudaDeviceSynchronize (200) waits
  // for GPU 1 only: 1000 after its kernel; t1.
  expect_ns(o, "s10_two_gpus_ns", kLaunch + kOtherCall + kLaunch + k + kSyncReturn + kClockRead);
  // t2, cudaSetDevice(1), kernel on GPU 1, cudaSetDevice(0), cudaDeviceSynchronize of the idle
  // GPU 0 returns at once, t3 ...
  expect_ns(o, "s10_other_device_sync_ns",
            kOtherCall + kLaunch + kOtherCall + kOtherCall + kClockRead);
  // ... then cudaSetDevice(1), cudaDeviceSynchronize waits for GPU 1's kernel (started at
  // t2+2200), t4.
  expect_ns(o, "s10_device1_sync_ns", kOtherCall + kLaunch + k + kSyncReturn + kClockRead);
  // S11: cudaFree synchronizes the device, as in real CUDA: t0, kernel (2000), cudaFree waits
  // for it (+1000), t1.
  expect_ns(o, "s11_free_ns", kLaunch + k + kSyncReturn + kClockRead);
}

TEST(StreamTiming, PerThreadDefaultStream) {
  // programs/ptds.cu is built with --default-stream per-thread.
  TempDir dir;
  const Outcome o = seer_run("dgx-h100", dir.file("out"), {program("ptds")});
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  const int64_t k = blocker_ns();
  const int64_t c = h2d_pinned_ns(kDgxH100, k64MiB);
  // P1: e0 and the kernel on the per-thread default stream, a copy on another blocking stream
  // (t+4000): it does not wait for the kernel.
  expect_event_ms(o, "p1_other_stream_ms", kLaunch + kMemcpyAsync + c);
  // P2: a copy on cudaStreamLegacy waits for the per-thread default stream's kernel.
  expect_event_ms(o, "p2_legacy_ms", kLaunch + k + c);
  // P3: and the per-thread default stream waits for the legacy default stream.
  expect_event_ms(o, "p3_after_legacy_ms", kLaunch + k + c);
  // P4: cudaStreamPerThread is the same stream as 0.
  expect_event_ms(o, "p4_same_stream_ms", kLaunch + k + c);
}

// ---------------------------------------------------------------------------------------------
// The example program of the README.

TEST(PipelineDemo, EightChunksOnFourStreams) {
  TempDir dir;
  const Outcome o = seer_run("dgx-h100", dir.file("out"), {program("e2e_pipeline_demo")});
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  // 8 chunks of 64 MiB; per chunk on stream c % 4: H2D, scale, add_bias (65536 x 256 each), D2H.
  // The copy-in engine serializes the eight H2D copies and is never idle: the first starts when
  // it is submitted (one memcpyAsync after the start event) and chunk c + 4's copy becomes ready
  // (when chunk c's D2H ends) before the copy ahead of it finishes. The kernels of a chunk take
  // 193 us, far less than an H2D, so they never wait for the compute engine; chunk 6's D2H ends
  // exactly when chunk 7's kernels do, so the last D2H starts at once.
  //   stop - start = 2000 + 8 * H2D + 2 * kernel + D2H
  const int64_t h2d = h2d_pinned_ns(kDgxH100, k64MiB);
  const int64_t kernel = kernel_ns(kH100, 65536, 256);
  const int64_t events = kMemcpyAsync + 8 * h2d + 2 * kernel + h2d;
  EXPECT_EQ(events, 11'194'458);
  // std::chrono: wall_start read, record start (500), ..., the GPU work, cudaEventSynchronize
  // returns 1000 after the stop event completes, wall_stop read (20).
  const int64_t chrono = kEventRecord + events + kSyncReturn + kClockRead;
  char line[128];
  std::snprintf(line, sizeof line, "cuda events: %.3f ms\n", static_cast<double>(events) / 1e6);
  EXPECT_NE(o.out.find(line), std::string::npos) << "expected '" << line << "'\n" << o.describe();
  std::snprintf(line, sizeof line, "std::chrono: %.3f ms\n", static_cast<double>(chrono) / 1e6);
  EXPECT_NE(o.out.find(line), std::string::npos) << "expected '" << line << "'\n" << o.describe();
  EXPECT_NE(o.out.find("device: NVIDIA H100 80GB HBM3, 132 SMs, 80.0 GiB"), std::string::npos)
      << o.describe();

  const nlohmann::json s = read_json(dir.file("out/summary.json"));
  ASSERT_EQ(s["gpus"].size(), 1u) << s.dump(2);
  const nlohmann::json& g = s["gpus"][0];
  EXPECT_EQ(g["gpu"], 0);
  EXPECT_EQ(g["kernels"]["count"], 16);
  EXPECT_EQ(g["kernels"]["time_ns"], 16 * kernel);
  EXPECT_EQ(g["copies"]["count"], 16);
  EXPECT_EQ(g["copies"]["time_ns"], 16 * h2d);
  EXPECT_EQ(g["copies"]["bytes"], 16 * k64MiB);
  EXPECT_EQ(g["peak_memory_bytes"], 8 * k64MiB);
  ASSERT_EQ(s["kernels"].size(), 2u) << s.dump(2);
  for (const auto& k : s["kernels"]) {
    EXPECT_TRUE(k["name"] == "scale(float*, unsigned long, float)" ||
                k["name"] == "add_bias(float*, unsigned long, float)")
        << k.dump();
    EXPECT_EQ(k["count"], 8);
    EXPECT_EQ(k["total_ns"], 8 * kernel);
    EXPECT_EQ(k["min_ns"], kernel);
    EXPECT_EQ(k["max_ns"], kernel);
    EXPECT_EQ(k["source"], "generic");
  }
  EXPECT_EQ(s["time_sources"]["generic_kernel_ns"], 16 * kernel);
  EXPECT_EQ(s["time_sources"]["all_ops_ns"], 16 * kernel + 16 * h2d);
}

// ---------------------------------------------------------------------------------------------
// Python through ctypes: time.perf_counter reads virtual time too.

TEST(PythonCtypes, PerfCounterAroundABlockingCopy) {
  TempDir dir;
  const Outcome o =
      seer_run("dgx-h100", dir.file("out"), {"python3", source_dir() + "/programs/ctypes_copy.py"});
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  EXPECT_EQ(o.integer("copy_rc"), 0);
  EXPECT_EQ(o.integer("sync_rc"), 0);
  EXPECT_EQ(o.integer("copy2_rc"), 0);
  // perf_counter_ns, cudaMemcpy of 64 MiB from a pageable ctypes buffer (3000 + copy + sync
  // return), cudaDeviceSynchronize on an idle GPU (200), perf_counter_ns (20).
  const int64_t copy = h2d_pageable_ns(kDgxH100, k64MiB);
  expect_ns(o, "h2d_perf_counter_ns", kMemcpySync + copy + kSyncReturn + kOtherCall + kClockRead);
  // The same back to the host, with time.perf_counter (float seconds).
  EXPECT_NEAR(o.number("d2h_perf_counter_s") * 1e9,
              static_cast<double>(kMemcpySync + copy + kSyncReturn + kClockRead), 2.0);
  expect_plausible_date(o, "time_time_s");
}

// programs/layouts.cu: two overloads of PyTorch's vectorized elementwise kernel, N as an int (as
// PyTorch declares it) and as a long. The family model reads N for the first, so its time grows
// with N at the same grid; the image says the second's parameter 0 is 8 bytes, so Seer does not
// read 4 of them as N: it says so once and times it with the generic model, from the grid alone.
TEST(KernelArguments, ReadOnlyWhereTheImageSaysTheParameterIs) {
  TempDir dir;
  const Outcome o = seer_run("dgx-h100", dir.file("out"), {program("layouts")});
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  EXPECT_GT(o.number("int_4n_ms"), 3 * o.number("int_n_ms"));
  EXPECT_EQ(o.text("long_4n_ms"), o.text("long_n_ms"));
  EXPECT_LT(o.number("long_n_ms"), o.number("int_4n_ms"));
  const std::string warning = "its parameters are not where Seer's kernel-family model reads";
  const std::size_t at = o.err.find(warning);
  ASSERT_NE(at, std::string::npos) << o.err;
  EXPECT_EQ(o.err.find(warning, at + 1), std::string::npos) << "only the long overload: " << o.err;
  EXPECT_NE(o.err.find("vectorized_elementwise_kernel"), std::string::npos);
  // From the image: __launch_bounds__(256) and 40 KiB of __shared__ (nvcc's sm_90 section also
  // holds the 1 KiB it reserves per block); an H100 SM holds 228 KiB of shared memory (233,472
  // bytes), so 5 such blocks. Without the image: 1024 threads, 0 bytes, 8 blocks.
  EXPECT_EQ(o.integer("tiled_max_threads"), 256);
  EXPECT_GE(o.integer("tiled_shared_bytes"), 40960);
  EXPECT_LE(o.integer("tiled_shared_bytes"), 40960 + 1024);
  EXPECT_GT(o.integer("tiled_registers"), 0);
  EXPECT_EQ(o.integer("tiled_blocks_per_sm"), 233472 / 40960);
}

// Many PyTorch users preload jemalloc or tcmalloc. Such a malloc needs static TLS beside Seer's
// audit module, and takes its own mutexes (and reads clocks, and yields) through Seer's wrappers,
// also while it starts and while it holds its locks: the run must work, and the malloc's own
// locks and clock reads must not pass virtual time between threads (allocator_code.h). So the
// figures are those of glibc's malloc, and the same in every run.
class PreloadedAllocator : public ::testing::TestWithParam<const char*> {};

TEST_P(PreloadedAllocator, GivesGlibcMallocsFiguresInEveryRun) {
  const std::string library = std::string("/usr/lib/x86_64-linux-gnu/") + GetParam();
  if (!std::filesystem::exists(library)) {
    GTEST_SKIP() << library << " is missing (scripts/setup.sh installs it)";
  }
  const Env preload{{"LD_PRELOAD", library}};
  {
    TempDir dir;
    const Outcome o = seer_run("dgx-h100", dir.file("out"), {program("copies"), "1"}, preload);
    ASSERT_EQ(o.exit_code, 0) << o.describe();
    expect_copies(o, kH100, kDgxH100);
  }
  TempDir plain_dir;
  const Outcome plain = seer_run("dgx-h100", plain_dir.file("out"), {program("threads")});
  ASSERT_EQ(plain.exit_code, 0) << plain.describe();
  ASSERT_EQ(plain.results.size(), 10u) << plain.describe();
  const std::string plain_summary = read_file(plain_dir.file("out/summary.json"));
  for (int run = 0; run < 3; ++run) {
    TempDir dir;
    const Outcome o = seer_run("dgx-h100", dir.file("out"), {program("threads")}, preload);
    ASSERT_EQ(o.exit_code, 0) << o.describe();
    EXPECT_EQ(o.results, plain.results) << o.out;
    EXPECT_EQ(read_file(dir.file("out/summary.json")), plain_summary) << "run " << run;
  }
}

INSTANTIATE_TEST_SUITE_P(Libraries, PreloadedAllocator,
                         ::testing::Values("libjemalloc.so.2", "libtcmalloc_minimal.so.4"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param).find("jemalloc") != std::string::npos
                                      ? "Jemalloc"
                                      : "Tcmalloc";
                         });

}  // namespace
}  // namespace seer::e2e
