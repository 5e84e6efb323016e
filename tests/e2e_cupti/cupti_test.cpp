// torch.profiler(activities=[CPU, CUDA]) under `seer run` through Seer's libcupti.so.13:
// key_averages() lists the GEMM with the simulated time Seer's own trace gives it, and the
// exported Chrome trace has the kernels on a GPU track at Seer's simulated durations. On two
// NCCL ranks, the all-reduce is an NCCL kernel on the stream and at the duration Seer's trace
// gives the collective, and synchronizations appear at their simulated times.

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "e2e_util.h"
#include "torch_util.h"

namespace seer::e2e::torch {
namespace {

using CuptiTest = TorchTest;

nlohmann::json load(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

const nlohmann::json& events(const nlohmann::json& trace) {
  return trace.is_array() ? trace : trace.at("traceEvents");
}

// Durations (us) of the kernel events named `name` (every kernel when empty), in trace order.
std::vector<double> kernel_durations(const nlohmann::json& trace, const std::string& name,
                                     std::vector<int>* pids = nullptr) {
  std::vector<double> out;
  for (const auto& e : events(trace)) {
    if (e.value("cat", "") != "kernel" || e.value("ph", "") != "X") continue;
    if (!name.empty() && e.value("name", "") != name) continue;
    out.push_back(e.at("dur").get<double>());
    if (pids) pids->push_back(e.at("pid").get<int>());
  }
  return out;
}

TEST_F(CuptiTest, ProfilerShowsSimulatedKernelTimes) {
  const std::string dir = ::testing::TempDir() + "seer_cupti_e2e";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string chrome = dir + "/profiler_trace.json";
  const Outcome o =
      seer_torch("dgx-h100", dir + "/out", python_command(program("profile_matmul.py"), {chrome}));
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  ASSERT_EQ(o.integer("exported"), 1) << o.describe();

  // Seer's own trace: the simulated GEMMs (all of them run inside the profiled region).
  const nlohmann::json seer_trace = load(dir + "/out/trace.json");
  const std::string gemm = o.text("gemm_name");
  const std::vector<double> simulated = kernel_durations(seer_trace, gemm);
  ASSERT_EQ(simulated.size(), 3u) << gemm;
  double simulated_total = 0;
  for (double d : simulated) simulated_total += d;
  EXPECT_EQ(o.integer("gemm_count"), 3);
  EXPECT_NEAR(o.number("gemm_device_us"), simulated_total, 0.01);
  // Correlation: the GEMMs' time is attributed to the aten::mm that launched them.
  EXPECT_NEAR(o.number("mm_device_us"), simulated_total, 0.01);

  // The exported trace: kernels on a GPU process track, at the simulated durations.
  const nlohmann::json exported = load(chrome);
  std::vector<int> pids;
  const std::vector<double> profiled = kernel_durations(exported, gemm, &pids);
  ASSERT_EQ(profiled.size(), simulated.size());
  for (size_t i = 0; i < profiled.size(); ++i) EXPECT_NEAR(profiled[i], simulated[i], 0.002);
  std::map<int, std::string> labels;
  for (const auto& e : events(exported)) {
    if (e.value("ph", "") == "M" && e.value("name", "") == "process_labels") {
      labels[e.at("pid").get<int>()] = e.at("args").value("labels", "");
    }
  }
  for (int pid : pids) EXPECT_EQ(labels[pid].rfind("GPU", 0), 0u) << pid;
  // The elementwise kernel is there too, under its (demangled) kernel name.
  const std::vector<double> all = kernel_durations(exported, "");
  EXPECT_GE(all.size(), profiled.size() + 1);
  // The device-to-host copy of the 1024x1024 float result, as a memcpy record.
  int copies = 0;
  for (const auto& e : events(exported)) {
    if (e.value("cat", "") != "gpu_memcpy") continue;
    ++copies;
    EXPECT_EQ(e.at("args").value("bytes", 0LL), 1024LL * 1024 * 4);
    EXPECT_GT(e.at("dur").get<double>(), 0.0);
  }
  EXPECT_EQ(copies, 1);
}

// The events of `trace` in category `cat` (complete events only).
std::vector<nlohmann::json> of_category(const nlohmann::json& trace, const std::string& cat) {
  std::vector<nlohmann::json> out;
  for (const auto& e : events(trace)) {
    if (e.value("cat", "") == cat && e.value("ph", "") == "X") out.push_back(e);
  }
  return out;
}

double end_us(const nlohmann::json& e) {
  return e.at("ts").get<double>() + e.at("dur").get<double>();
}

TEST_F(CuptiTest, NcclKernelsAndSynchronizationsOnTwoRanks) {
  const std::string dir = ::testing::TempDir() + "seer_cupti_nccl_e2e";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const Outcome o =
      seer_torch("dgx-h100", dir + "/out", torchrun(2, program("profile_allreduce.py"), {dir}));
  ASSERT_EQ(o.exit_code, 0) << o.describe();

  // Seer's own trace: per rank, the last all-reduce (the profiled one) and its stream's track.
  const nlohmann::json seer_trace = load(dir + "/out/trace.json");
  std::map<int, int> rank_of_pid;
  std::map<std::pair<int, int>, std::string> track_names;
  for (const auto& e : events(seer_trace)) {
    if (e.value("ph", "") != "M") continue;
    const std::string name = e.at("args").value("name", "");
    if (e.value("name", "") == "process_name" && name.rfind("rank ", 0) == 0) {
      rank_of_pid[e.at("pid").get<int>()] = std::stoi(name.substr(5));
    }
    if (e.value("name", "") == "thread_name") {
      track_names[{e.at("pid").get<int>(), e.at("tid").get<int>()}] = name;
    }
  }
  std::map<int, nlohmann::json> collective;  // by rank
  for (const auto& e : of_category(seer_trace, "nccl")) {
    const auto rank = rank_of_pid.find(e.at("pid").get<int>());
    ASSERT_NE(rank, rank_of_pid.end()) << e.dump();
    collective[rank->second] = e;
  }
  ASSERT_EQ(collective.size(), 2u);

  const std::regex kernel_name(
      R"(ncclDevKernel_AllReduce_Sum_f32_(RING|TREE)_LL\(ncclDevKernelArgsStorage<4096ul>\))");
  for (int r = 0; r < 2; ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    const std::string rank = std::to_string(r);
    const nlohmann::json& simulated = collective[r];
    EXPECT_EQ(simulated.value("name", ""), "ncclAllReduce");
    const double seer_us = simulated.at("dur").get<double>();
    ASSERT_GT(seer_us, 0.0);
    // Seer names a stream's track "GPU g stream <the program's stream id>".
    const std::string track =
        track_names[{simulated.at("pid").get<int>(), simulated.at("tid").get<int>()}];
    const auto at = track.find(" stream ");
    ASSERT_NE(at, std::string::npos) << track;
    const long long seer_stream = std::stoll(track.substr(at + 8));

    // key_averages(): one NCCL kernel with the collective's simulated time.
    EXPECT_TRUE(std::regex_match(o.text("nccl_name_" + rank), kernel_name))
        << o.text("nccl_name_" + rank);
    EXPECT_EQ(o.integer("nccl_count_" + rank), 1);
    EXPECT_NEAR(o.number("nccl_device_us_" + rank), seer_us, 0.01);

    // The exported trace: the kernel on that stream at that duration, launched by
    // cuLaunchKernelEx (same correlation id), its stream waiting for the issuing one first.
    const nlohmann::json exported = load(dir + "/rank" + rank + ".json");
    std::vector<nlohmann::json> nccl;
    for (const auto& e : of_category(exported, "kernel")) {
      if (e.value("name", "").rfind("ncclDevKernel", 0) == 0) nccl.push_back(e);
    }
    ASSERT_EQ(nccl.size(), 1u);
    const nlohmann::json& kernel = nccl[0];
    EXPECT_TRUE(std::regex_match(kernel.value("name", ""), kernel_name)) << kernel.dump();
    EXPECT_NEAR(kernel.at("dur").get<double>(), seer_us, 0.002);
    EXPECT_EQ(kernel.at("args").value("stream", -1LL), seer_stream);
    EXPECT_EQ(kernel.at("args").at("grid")[0].get<int>(),
              simulated.at("args").value("channels", 0));
    const long long correlation = kernel.at("args").value("correlation", -1LL);
    int launches = 0;
    for (const auto& e : of_category(exported, "cuda_driver")) {
      if (e.at("args").value("correlation", -2LL) != correlation) continue;
      ++launches;
      EXPECT_EQ(e.value("name", ""), "cuLaunchKernelEx");
      EXPECT_LE(e.at("ts").get<double>(), kernel.at("ts").get<double>() + 0.002);
    }
    EXPECT_EQ(launches, 1);

    // Synchronization records: torch.cuda.synchronize() returns once the collective is done;
    // ProcessGroupNCCL's stream waits for an event of the current stream before the kernel.
    bool context_sync_after_kernel = false;
    int stream_waits = 0;
    for (const auto& e : of_category(exported, "cuda_sync")) {
      if (e.value("name", "") == "Context Sync" && e.at("dur").get<double>() > 0) {
        context_sync_after_kernel =
            context_sync_after_kernel ||
            (end_us(e) >= end_us(kernel) - 0.002 && e.at("ts").get<double>() <= end_us(kernel));
      }
      if (e.value("name", "") == "Stream Wait Event" &&
          e.at("args").value("stream", -1LL) == seer_stream) {
        ++stream_waits;
        EXPECT_LE(e.at("ts").get<double>(), kernel.at("ts").get<double>() + 0.002);
      }
    }
    EXPECT_TRUE(context_sync_after_kernel);
    EXPECT_GE(stream_waits, 1);
    int sync_calls = 0;
    for (const auto& e : of_category(exported, "cuda_runtime")) {
      sync_calls += e.value("name", "") == "cudaDeviceSynchronize";
    }
    EXPECT_GE(sync_calls, 1);
  }
}

// A CUDA program using CUPTI directly (programs/cupti_direct.cu): CUDA_EVENT records at the
// times its own cudaEventElapsedTime measures, synchronization records linked to them, graph
// replays' kernels with graph and node ids and one GRAPH_TRACE record per launch spanning them,
// and callback-API enter/exit pairs correlated with the activity records.
TEST(CuptiDirect, EventsGraphsAndCallbacks) {
  const std::string exe = seer::e2e::program("cupti_direct");
  if (!std::filesystem::exists(exe)) GTEST_SKIP() << "not built: " << exe;
  seer::e2e::TempDir dir;
  const seer::e2e::Outcome o = seer::e2e::seer_run("dgx-h100", dir.file("out"), {exe});
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  // Events: two records, on the program's stream, as far apart as the program measured (its
  // float milliseconds carry ~7 significant digits).
  ASSERT_EQ(o.integer("events"), 2) << o.describe();
  const double program_ns = o.number("program_elapsed_ns");
  EXPECT_GT(program_ns, 1000.0);
  // The records' times are the engine's event completions, the same the program's elapsed time
  // comes from (±1 ns rounding of each timestamp).
  EXPECT_NEAR(o.number("event_elapsed_ns"), program_ns, 2.0);
  EXPECT_EQ(o.integer("events_distinct"), 1);
  EXPECT_EQ(o.integer("events_on_stream"), 1);
  EXPECT_EQ(o.integer("e1_minus_kernel_end"), 0);
  EXPECT_EQ(o.integer("e0_le_kernel_start"), 1);
  EXPECT_EQ(o.integer("event_api_is_record"), 1);
  // The event sync and the other stream's wait name e1 and link to its record.
  EXPECT_EQ(o.integer("event_syncs"), 1);
  EXPECT_EQ(o.integer("stream_waits"), 1);
  EXPECT_EQ(o.integer("linked_syncs"), 2);
  // Graphs: 2 launches x 2 nodes; one exec id, two node ids, one correlation per launch.
  ASSERT_EQ(o.integer("graph_kernels"), 4);
  EXPECT_EQ(o.integer("graph_nodes"), 2);
  EXPECT_EQ(o.integer("graph_ids"), 1);
  EXPECT_EQ(o.integer("graph_correlations"), 2);
  EXPECT_EQ(o.integer("graph_traces"), 2);
  EXPECT_EQ(o.integer("graph_spans"), 2);
  EXPECT_EQ(o.integer("kernels"), 6);
  EXPECT_GE(o.integer("overheads"), 1);
  // Callbacks: every enter followed by its exit, same id and correlation, the subscriber's data
  // kept; both launches named with their kernel and correlated with kernel and API records.
  EXPECT_GE(o.integer("callback_pairs"), 10);
  EXPECT_EQ(o.integer("callback_unpaired"), 0);
  EXPECT_EQ(o.integer("launch_callbacks"), 2);
  EXPECT_EQ(o.integer("sync_callbacks"), 2);
  EXPECT_EQ(o.integer("graph_callbacks"), 4);
  EXPECT_EQ(o.integer("callbacks_after_disable"), 0);
}

}  // namespace
}  // namespace seer::e2e::torch
