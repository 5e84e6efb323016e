// Reports (summary.json, trace.json), determinism under injected real-time delays, and the
// measured host-time mode.

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "e2e_util.h"

namespace seer::e2e {
namespace {

using namespace model;

// ---------------------------------------------------------------------------------------------
// summary.json

TEST(Summary, KernelsProgram) {
  TempDir dir;
  const Outcome o = seer_run("dgx-h100", dir.file("out"), {program("kernels")});
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  const nlohmann::json s = read_json(dir.file("out/summary.json"));
  EXPECT_EQ(s["schema"], "seer.summary");
  EXPECT_EQ(s["schema_version"], 1);
  EXPECT_EQ(s["cluster"]["name"], "dgx-h100");
  EXPECT_EQ(s["cluster"]["nodes"], 1);
  EXPECT_EQ(s["cluster"]["gpus_per_node"], 8);
  EXPECT_EQ(s["cluster"]["gpu"], "H100-SXM-80GB");
  EXPECT_EQ(s["host_time"], "modeled");
  EXPECT_EQ(s["command"], nlohmann::json::array({program("kernels")}));
  EXPECT_EQ(s["exit_code"], 0);
  EXPECT_TRUE(s["problems"].empty()) << s.dump(2);

  // Kernel durations (programs/kernels.cu): the blocker, nine geometries, three more 65536 x 256
  // (phase 2 and the two launch APIs of phase 6).
  const int64_t blocker = blocker_ns();
  const int64_t works[] = {
      kernel_ns(kH100, 1, 1, 1, 1, 1, 1),       kernel_ns(kH100, 65536, 1, 1, 256, 1, 1),
      kernel_ns(kH100, 100, 100, 1, 32, 32, 1), kernel_ns(kH100, 1000, 1, 1, 1024, 1, 1),
      kernel_ns(kH100, 4225, 1, 1, 64, 1, 1),   kernel_ns(kH100, 7, 11, 13, 8, 8, 2),
      kernel_ns(kH100, 42240, 1, 1, 32, 1, 1),  kernel_ns(kH100, 2773, 1, 1, 96, 1, 1),
      kernel_ns(kH100, 264, 1, 1, 1000, 1, 1),  kernel_ns(kH100, 65536, 1, 1, 256, 1, 1),
      kernel_ns(kH100, 65536, 1, 1, 256, 1, 1), kernel_ns(kH100, 65536, 1, 1, 256, 1, 1)};
  int64_t work_total = 0;
  for (int64_t w : works) work_total += w;
  const int64_t work_min = *std::min_element(std::begin(works), std::end(works));
  const int64_t work_max = *std::max_element(std::begin(works), std::end(works));

  ASSERT_EQ(s["gpus"].size(), 1u) << s.dump(2);
  const nlohmann::json& g = s["gpus"][0];
  EXPECT_EQ(g["gpu"], 0);
  EXPECT_EQ(g["node"], 0);
  EXPECT_EQ(g["kernels"]["count"], 13);
  EXPECT_EQ(g["kernels"]["time_ns"], blocker + work_total);
  EXPECT_EQ(g["copies"]["count"], 0);
  EXPECT_EQ(g["peak_memory_bytes"], 0);
  EXPECT_EQ(s["time_sources"]["generic_kernel_ns"], blocker + work_total);
  EXPECT_EQ(s["time_sources"]["all_ops_ns"], blocker + work_total);

  std::map<std::string, nlohmann::json> kernels;
  for (const auto& k : s["kernels"]) kernels[k["name"].get<std::string>()] = k;
  ASSERT_EQ(kernels.size(), 2u) << s.dump(2);
  ASSERT_TRUE(kernels.count("blocker()")) << s.dump(2);
  ASSERT_TRUE(kernels.count("work(int)")) << s.dump(2);
  EXPECT_EQ(kernels["blocker()"]["count"], 1);
  EXPECT_EQ(kernels["blocker()"]["total_ns"], blocker);
  EXPECT_EQ(kernels["work(int)"]["count"], 12);
  EXPECT_EQ(kernels["work(int)"]["total_ns"], work_total);
  EXPECT_EQ(kernels["work(int)"]["avg_ns"], work_total / 12);
  EXPECT_EQ(kernels["work(int)"]["min_ns"], work_min);
  EXPECT_EQ(kernels["work(int)"]["max_ns"], work_max);
  EXPECT_EQ(kernels["work(int)"]["source"], "generic");

  // The process's clock at exit, from the host costs alone:
  //   set-up: cudaSetDevice, cudaStreamCreate, 11 cudaEventCreate, cudaDeviceSynchronize (idle)
  const int64_t setup = 14 * kOtherCall;
  //   phase 1: its first clock read, then what the program measured; 12 cudaEventElapsedTime
  const int64_t phase1 = kClockRead + o.integer("phase1_chrono_ns") + 12 * kOtherCall;
  //   phase 2: its first clock read and what the program measured
  const int64_t phase2 = kClockRead + o.integer("phase2_chrono_ns");
  //   phase 3: read, cudaStreamSynchronize, read, cudaStreamQuery, read
  const int64_t phase3 = 3 * kClockRead + kOtherCall + kQuery;
  //   phase 4: 2 + 1 + 999 + 1 clock_gettime, gettimeofday, time
  const int64_t phase4 = 1005 * kClockRead;
  //   phase 5: two std::chrono reads (CPU-time clocks are real and free)
  const int64_t phase5 = 2 * kClockRead;
  //   phase 6: two first clock reads and what the program measured
  const int64_t phase6 = 2 * kClockRead + o.integer("launch_api_ns") + o.integer("launch_ex_ns");
  //   tear-down: 11 cudaEventDestroy, cudaStreamDestroy
  const int64_t teardown = 12 * kOtherCall;
  const int64_t exit_clock = setup + phase1 + phase2 + phase3 + phase4 + phase5 + phase6 + teardown;
  // The last kernel (phase 6) ends 1000 (sync return) + 20 (clock read) + the tear-down before
  // the exit.
  const int64_t last_kernel_end = exit_clock - teardown - kClockRead - kSyncReturn;
  // The simulated time covers all GPU work and no more than the program's own lifetime.
  EXPECT_GE(s["simulated_time_ns"].get<int64_t>(), last_kernel_end);
  EXPECT_LE(s["simulated_time_ns"].get<int64_t>(), exit_clock);
  ASSERT_EQ(s["processes"].size(), 1u) << s.dump(2);
  const nlohmann::json run = read_json(dir.file("out/run.json"));
  EXPECT_LE(run["processes"][0]["last_call_time_ns"].get<int64_t>(), exit_clock);
  EXPECT_GT(run["processes"][0]["last_call_time_ns"].get<int64_t>(), 0);
  EXPECT_EQ(s["processes"][0]["exited_normally"], true);
  EXPECT_EQ(s["processes"][0]["rank"], -1);
}

// ---------------------------------------------------------------------------------------------
// trace.json

struct Slice {
  int64_t start;
  int64_t end;
  std::string name;
};

int64_t to_ns(const nlohmann::json& us) { return std::llround(us.get<double>() * 1000.0); }

// Which engine of its GPU an op uses (simcore/README.md); empty for none.
std::string engine_of(const nlohmann::json& ev) {
  const std::string name = ev["name"].get<std::string>();
  if (ev["cat"] == "kernel" || name == "memcpy DtoD" || name == "memset") return "compute";
  if (name == "memcpy HtoD") return "copy-in";
  if (name == "memcpy DtoH") return "copy-out";
  if (name == "memcpy PtoP") return "peer";
  return "";
}

void expect_no_overlap(std::map<std::string, std::vector<Slice>>& groups, const std::string& what) {
  for (auto& [key, slices] : groups) {
    std::sort(slices.begin(), slices.end(),
              [](const Slice& a, const Slice& b) { return a.start < b.start; });
    for (size_t i = 1; i < slices.size(); ++i) {
      EXPECT_LE(slices[i - 1].end, slices[i].start)
          << what << " " << key << ": '" << slices[i - 1].name << "' [" << slices[i - 1].start
          << ", " << slices[i - 1].end << ") overlaps '" << slices[i].name << "' ["
          << slices[i].start << ", " << slices[i].end << ")";
    }
  }
}

// Checks the trace's structure and that no stream and no engine runs two ops at once. Returns
// the number of complete ("X") slices of category "kernel".
int check_trace(const std::string& path) {
  const nlohmann::json t = read_json(path);
  EXPECT_TRUE(t.contains("traceEvents"));
  std::map<std::pair<int, int>, int> gpu_of_track;
  std::set<std::pair<int, int>> host_tracks;
  std::set<int> named_processes;
  for (const auto& ev : t["traceEvents"]) {
    if (ev["ph"] != "M") continue;
    if (ev["name"] == "process_name") named_processes.insert(ev["pid"].get<int>());
    if (ev["name"] == "thread_name") {
      const std::string n = ev["args"]["name"].get<std::string>();
      if (n.rfind("host thread ", 0) == 0) {  // NVTX ranges and blocking waits of a thread
        host_tracks.insert({ev["pid"].get<int>(), ev["tid"].get<int>()});
        continue;
      }
      EXPECT_EQ(n.rfind("GPU ", 0), 0u) << n;
      gpu_of_track[{ev["pid"].get<int>(), ev["tid"].get<int>()}] = std::stoi(n.substr(4));
    }
  }
  std::map<std::string, std::vector<Slice>> by_track, by_engine;
  int kernels = 0;
  for (const auto& ev : t["traceEvents"]) {
    if (ev["ph"] != "X") continue;
    const int pid = ev["pid"].get<int>();
    const int tid = ev["tid"].get<int>();
    EXPECT_TRUE(named_processes.count(pid)) << ev.dump();
    auto track = gpu_of_track.find({pid, tid});
    EXPECT_TRUE(track != gpu_of_track.end() || host_tracks.count({pid, tid}))
        << "slice on an unnamed track: " << ev.dump();
    const Slice s{to_ns(ev["ts"]), to_ns(ev["ts"]) + to_ns(ev["dur"]), ev["name"]};
    EXPECT_GE(s.end, s.start) << ev.dump();
    if (ev["cat"] == "kernel") ++kernels;
    if (s.end == s.start) continue;
    by_track["pid " + std::to_string(pid) + " tid " + std::to_string(tid)].push_back(s);
    const std::string engine = engine_of(ev);
    if (!engine.empty() && track != gpu_of_track.end()) {
      by_engine["GPU " + std::to_string(track->second) + " " + engine].push_back(s);
    }
  }
  expect_no_overlap(by_track, "track");
  expect_no_overlap(by_engine, "engine");
  return kernels;
}

TEST(Trace, SlicesOnATrackOrAnEngineNeverOverlap) {
  for (const auto& [cluster, command] :
       std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"dgx-h100", {program("e2e_pipeline_demo")}},
           {"dgx-h100", {program("streams")}},
           {"test-fabric", {program("copies"), "1", "2"}}}) {
    SCOPED_TRACE(command[0]);
    TempDir dir;
    const Outcome o = seer_run(cluster, dir.file("out"), command);
    ASSERT_EQ(o.exit_code, 0) << o.describe();
    const int kernels = check_trace(dir.file("out/trace.json"));
    const nlohmann::json s = read_json(dir.file("out/summary.json"));
    int64_t summary_kernels = 0;
    for (const auto& g : s["gpus"]) summary_kernels += g["kernels"]["count"].get<int64_t>();
    EXPECT_EQ(kernels, summary_kernels);
  }
}

// ---------------------------------------------------------------------------------------------
// Determinism: --host-time modeled gives byte-identical summaries, run after run, with random
// real-time delays injected before every message the ranks send.

std::vector<std::string> three_ranks_on_one_gpu() {
  return {"sh", "-c",
          "for r in 0 1 2; do RANK=$r WORLD_SIZE=3 '" + program("contend") + "' & done; wait"};
}

TEST(Determinism, ThreeRanksSharingAGpuWithJitter) {
  const std::vector<std::string> command = three_ranks_on_one_gpu();
  std::vector<std::pair<std::string, Env>> runs = {{"plain 1", {}},
                                                   {"plain 2", {}},
                                                   {"plain 3", {}},
                                                   {"jitter 1", {{"SEER_TEST_JITTER_US", "2000"}}},
                                                   {"jitter 2", {{"SEER_TEST_JITTER_US", "2000"}}}};
  std::string first_summary;
  std::map<std::string, std::string> first_results;
  for (const auto& [label, env] : runs) {
    SCOPED_TRACE(label);
    TempDir dir;
    const Outcome o = seer_run("dgx-h100", dir.file("out"), command, env);
    ASSERT_EQ(o.exit_code, 0) << o.describe();
    ASSERT_EQ(o.results.size(), 3u * 10 * 3) << o.describe();
    const std::string summary = read_file(dir.file("out/summary.json"));
    if (first_summary.empty()) {
      first_summary = summary;
      first_results = o.results;
      const nlohmann::json s = nlohmann::json::parse(summary);
      ASSERT_EQ(s["processes"].size(), 3u) << summary;
      std::set<int> ranks;
      for (const auto& p : s["processes"]) {
        ranks.insert(p["rank"].get<int>());
        EXPECT_EQ(p["exited_normally"], true);
      }
      EXPECT_EQ(ranks, (std::set<int>{0, 1, 2}));
      // Each rank alone: record, H2D submitted 2000 later, the kernel, the D2H. Sharing the GPU
      // can only delay it, and does.
      bool delayed = false;
      for (int r = 0; r < 3; ++r) {
        const int64_t bytes = int64_t{r + 1} << 20;
        const int64_t alone = kMemcpyAsync + 2 * h2d_pinned_ns(kDgxH100, bytes) +
                              kernel_ns(kH100, 4224 * 10 * (r + 1), 32);
        for (int it = 0; it < 10; ++it) {
          // append, not "r" + string: GCC 12 at -O3 reports a false -Wrestrict for the latter.
          const std::string name =
              std::string("r").append(std::to_string(r)).append("_it").append(std::to_string(it));
          const double ms = o.number(name + "_event_ms");
          EXPECT_GE(ms * 1e6, static_cast<double>(alone) - 2) << name;
          delayed = delayed || ms * 1e6 > static_cast<double>(alone) + 2;
        }
      }
      EXPECT_TRUE(delayed) << "the ranks never delayed each other:\n" << o.out;
      continue;
    }
    EXPECT_EQ(summary, first_summary);
    EXPECT_EQ(o.results, first_results);
  }
}

TEST(Determinism, SingleProcessWithJitter) {
  TempDir a, b;
  const Outcome plain = seer_run("dgx-h100", a.file("out"), {program("streams")});
  const Outcome jitter =
      seer_run("dgx-h100", b.file("out"), {program("streams")}, {{"SEER_TEST_JITTER_US", "2000"}});
  ASSERT_EQ(plain.exit_code, 0) << plain.describe();
  ASSERT_EQ(jitter.exit_code, 0) << jitter.describe();
  EXPECT_EQ(plain.results, jitter.results);
  EXPECT_EQ(read_file(a.file("out/summary.json")), read_file(b.file("out/summary.json")));
}

// Two worker threads submit at the same time (programs/threads.cu), each on its own per-thread
// stream of one GPU. Each keeps its own clock (it starts from its creator's, and the main thread
// continues from theirs when it joins them: interposer/client/thread_handoff.cpp), and the session
// orders their records by thread and record count, not arrival: the summary and every printed time
// are the same in every run, with random delays injected before each message.
TEST(Determinism, MultiThreadedProgram) {
  std::map<std::string, std::string> first;
  std::string first_summary;
  for (const Env& env : std::vector<Env>{{},
                                         {},
                                         {{"SEER_TEST_JITTER_US", "2000"}},
                                         {{"SEER_TEST_JITTER_US", "2000"}},
                                         {{"SEER_TEST_JITTER_US", "500"}}}) {
    TempDir dir;
    const Outcome o = seer_run("dgx-h100", dir.file("out"), {program("threads")}, env);
    ASSERT_EQ(o.exit_code, 0) << o.describe();
    ASSERT_EQ(o.results.size(), 10u) << o.describe();
    const std::string summary = read_file(dir.file("out/summary.json"));
    if (first.empty()) {
      first = o.results;
      first_summary = summary;
      // Both threads' first iterations start at once on one GPU: the one whose copy and kernel
      // go second is delayed by the other's.
      EXPECT_NE(o.integer("t0_it0_ns"), o.integer("t1_it0_ns")) << o.out;
      const int64_t alone = kMemcpyAsync + h2d_pinned_ns(kDgxH100, int64_t{8} << 20);
      EXPECT_GT(o.integer("t0_it0_ns"), alone) << o.out;
      EXPECT_GT(o.integer("t1_it0_ns"), alone) << o.out;
      continue;
    }
    EXPECT_EQ(o.results, first) << o.out;
    EXPECT_EQ(summary, first_summary);
  }
}

// Eight threads launch the same 64 kernels at once on the legacy default stream, so each
// kernel's name and the stream itself are first used by several threads together
// (programs/first_launches.cu). Every launch must count, under its own name, on that stream:
// none dropped as work on an unknown stream, none reported as an unregistered kernel.
TEST(Determinism, KernelsAndTheDefaultStreamFirstUsedByManyThreadsAtOnce) {
  constexpr int kThreads = 8, kKernels = 64;
  const int64_t each = kernel_ns(kH100, 132, 128);
  for (int attempt = 0; attempt < 3; ++attempt) {
    TempDir dir;
    const Outcome o = seer_run("dgx-h100", dir.file("out"), {program("first_launches")});
    ASSERT_EQ(o.exit_code, 0) << o.describe();
    ASSERT_EQ(o.integer("threads"), kThreads) << o.out;
    const nlohmann::json s = read_json(dir.file("out/summary.json"));
    EXPECT_EQ(s["problems"], nlohmann::json::array()) << o.out;
    ASSERT_EQ(s["kernels"].size(), size_t{kKernels}) << s["kernels"].dump(1);
    std::set<std::string> names;
    for (const nlohmann::json& k : s["kernels"]) {
      names.insert(k["name"].get<std::string>());
      EXPECT_EQ(k["count"], kThreads) << k.dump();
      EXPECT_EQ(k["avg_ns"], each) << k.dump();
    }
    for (int n = 0; n < kKernels; ++n) {
      EXPECT_TRUE(names.count("void first_launch<" + std::to_string(n) + ">(int)")) << n;
    }
    // One stream: the launches run one after another.
    EXPECT_EQ(s["gpus"][0]["kernels"]["count"], kThreads * kKernels);
    EXPECT_EQ(s["gpus"][0]["busy_ns"], int64_t{kThreads} * kKernels * each);
  }
}

// ---------------------------------------------------------------------------------------------
// --host-time measured: the thread's CPU time counts too, so host figures are at least the
// modeled ones; device durations do not change.

TEST(MeasuredHostTime, AddsCpuTimeOnTopOfTheModel) {
  TempDir dir;
  const Outcome o = seer_run("dgx-h100", dir.file("out"), {program("kernels")}, {}, "measured");
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  const nlohmann::json s = read_json(dir.file("out/summary.json"));
  EXPECT_EQ(s["host_time"], "measured");
  // The kernels after the blocker still run back to back: exact durations.
  expect_event_ms(o, "g1_ms", kernel_ns(kH100, 65536, 256));
  expect_event_ms(o, "g2_ms", kernel_ns(kH100, 100, 100, 1, 32, 32, 1));
  EXPECT_GE(o.number("blocker_ms") * 1e6, static_cast<double>(kLaunch + blocker_ns()) - 2);
  // Host figures: at least the modeled ones (see timing_test.cpp).
  EXPECT_GE(o.integer("phase2_chrono_ns"),
            kLaunch + kernel_ns(kH100, 65536, 256) + kSyncReturn + kClockRead);
  EXPECT_GE(o.integer("idle_sync_ns"), kOtherCall + kClockRead);
  EXPECT_GE(o.integer("thousand_reads_ns"), 1000 * kClockRead);
  // 20 ms of CPU time between two clock reads shows up, scaled from this machine's CPU to the
  // preset's Xeon 8480C (cpu_scale: below 1 on a machine slower than it).
  const long long cpu = o.integer("spin_cpu_ns");
  EXPECT_GE(cpu, 20'000'000);
  const double scale = s["host"]["cpu_scale"].get<double>();
  EXPECT_GT(scale, 0);
  EXPECT_GE(static_cast<double>(o.integer("spin_chrono_ns")),
            static_cast<double>(cpu) * scale * 0.9);
  EXPECT_LT(o.integer("spin_chrono_ns"), 10'000'000'000LL);
}

}  // namespace
}  // namespace seer::e2e
