// trace.json from real programs: it parses, names one process per rank with its node and GPU,
// never overlaps slices on a track (NVTX ranges nest), links every collective's participants and
// every send with its receive by flow arrows bound to slices, and shows NVTX on host threads.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "e2e_util.h"

namespace seer::e2e {
namespace {

using nlohmann::json;

struct Slice {
  double ts, end;
  std::string name;
};
using Track = std::pair<int, int>;  // pid, tid

struct Trace {
  json events;
  std::map<Track, std::vector<Slice>> slices;
  std::map<int, std::string> process_names;
  std::map<Track, std::string> thread_names;
};

Trace load(const std::string& path) {
  Trace t;
  const json j = read_json(path);  // fails the test if it does not parse
  t.events = j.at("traceEvents");
  for (const json& e : t.events) {
    const std::string ph = e.at("ph");
    if (ph == "M" && e["name"] == "process_name") t.process_names[e["pid"]] = e["args"]["name"];
    if (ph == "M" && e["name"] == "thread_name") {
      t.thread_names[{e["pid"], e["tid"]}] = e["args"]["name"];
    }
    if (ph == "X") {
      const double ts = e["ts"], dur = e["dur"];
      EXPECT_GE(dur, 0) << e.dump();
      t.slices[{e["pid"], e["tid"]}].push_back({ts, ts + dur, e["name"]});
    }
  }
  for (auto& [track, v] : t.slices) {
    std::stable_sort(v.begin(), v.end(), [](const Slice& a, const Slice& b) {
      return a.ts < b.ts || (a.ts == b.ts && a.end > b.end);
    });
  }
  return t;
}

// Slices on one track are disjoint or nested, never partly overlapping.
void expect_no_overlap(const Trace& t) {
  for (const auto& [track, v] : t.slices) {
    std::vector<const Slice*> open;
    for (const Slice& s : v) {
      while (!open.empty() && open.back()->end <= s.ts + 1e-9) open.pop_back();
      if (!open.empty()) {
        EXPECT_LE(s.end, open.back()->end + 1e-9)
            << "track " << track.first << "/" << track.second << ": '" << s.name << "' [" << s.ts
            << ", " << s.end << "] overlaps '" << open.back()->name << "' [" << open.back()->ts
            << ", " << open.back()->end << "]";
      }
      open.push_back(&s);
    }
  }
}

// Each flow has one start and one finish, and every flow event lies inside a slice of its track.
std::map<uint64_t, std::vector<json>> check_flows(const Trace& t) {
  std::map<uint64_t, std::vector<json>> flows;
  for (const json& e : t.events) {
    const std::string ph = e["ph"];
    if (ph != "s" && ph != "t" && ph != "f") continue;
    flows[e["id"].get<uint64_t>()].push_back(e);
    const Track track{e["pid"], e["tid"]};
    auto it = t.slices.find(track);
    bool inside = false;
    if (it != t.slices.end()) {
      for (const Slice& s : it->second) inside |= s.ts <= e["ts"].get<double>() && e["ts"] <= s.end;
    }
    EXPECT_TRUE(inside) << "flow event outside any slice: " << e.dump();
  }
  for (const auto& [id, evs] : flows) {
    EXPECT_EQ(evs.front()["ph"], "s") << id;
    EXPECT_EQ(evs.back()["ph"], "f") << id;
    EXPECT_GE(evs.size(), 2u);
  }
  return flows;
}

TEST(Trace, DataParallelRanksCollectivesAndNvtx) {
  TempDir dir;
  const int ranks = 4, steps = 3, buckets = 2;
  const Outcome o =
      seer_run("dgx-h100:2", dir.path(),
               mpirun(ranks, {example("dp_train"), "--steps", std::to_string(steps), "--buckets",
                              std::to_string(buckets), "--layers", "4"}));
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  const Trace t = load(dir.file("trace.json"));
  // One process per rank, named with its node and GPU (4 processes per node on dgx-h100:2 is
  // up to the launcher: GPUs 0-3 of node 0 here).
  for (int r = 0; r < ranks; ++r) {
    ASSERT_TRUE(t.process_names.count(r)) << r;
    EXPECT_EQ(t.process_names.at(r),
              "rank " + std::to_string(r) + " (node 0, GPU " + std::to_string(r) + ")");
  }
  expect_no_overlap(t);
  // Stream tracks and a host-thread track per rank carrying its NVTX step ranges.
  std::map<int, int> step_ranges;
  for (const auto& [track, v] : t.slices) {
    const std::string& name = t.thread_names.at(track);
    if (name.rfind("host thread", 0) == 0) {
      for (const Slice& s : v) step_ranges[track.first] += s.name.rfind("train_step", 0) == 0;
    } else {
      EXPECT_EQ(name.rfind("GPU ", 0), 0u) << name;
    }
  }
  for (int r = 0; r < ranks; ++r) EXPECT_EQ(step_ranges[r], steps) << r;
  // One flow per all-reduce call, through all four ranks.
  const auto flows = check_flows(t);
  int allreduce_flows = 0;
  for (const auto& [id, evs] : flows) {
    if (evs.front()["name"] != "ncclAllReduce") continue;
    ++allreduce_flows;
    std::set<int> pids;
    for (const json& e : evs) pids.insert(e["pid"].get<int>());
    EXPECT_EQ(pids.size(), static_cast<size_t>(ranks));
  }
  EXPECT_EQ(allreduce_flows, steps * buckets);
  // Link load as counter tracks: the all-reduces move data over the GPUs' NVSwitch ports, never
  // above a port's 450 GB/s (DGX H100: 18 NVLink 4 links of 25 GB/s per direction).
  std::set<std::string> counters;
  for (const json& e : t.events) {
    if (e["ph"] != "C") continue;
    counters.insert(e["name"].get<std::string>());
    const double gbs = e["args"]["GB/s"];
    EXPECT_GE(gbs, 0) << e.dump();
    EXPECT_LE(gbs, 450.0 + 1e-6) << e.dump();
  }
  EXPECT_TRUE(counters.count("node0/gpu0->nvswitch")) << counters.size();

  // The per-GPU split adds up: compute, exposed communication and idle tile the run, and the
  // buckets' all-reduces overlap the rest of the backward pass.
  const json summary = read_json(dir.file("summary.json"));
  const int64_t end = summary["simulated_time_ns"];
  ASSERT_EQ(summary["gpus"].size(), static_cast<size_t>(ranks));
  for (const json& g : summary["gpus"]) {
    const int64_t compute = g["compute_ns"], exposed = g["exposed_comm_ns"],
                  overlap = g["overlap_ns"], idle = g["idle_ns"], comm = g["comm_ns"];
    EXPECT_EQ(compute + exposed + idle, end) << g.dump();
    EXPECT_EQ(exposed + overlap, comm) << g.dump();
    EXPECT_GT(overlap, 0) << g.dump();
    EXPECT_GE(exposed, 0) << g.dump();
  }
}

// --torch-traces: one Kineto-shaped file per rank, with its rank, its device's kernels and NCCL
// kernels, and one ProfilerStep per step.
TEST(Trace, TorchProfilerShapedFilesPerRank) {
  TempDir dir;
  const int ranks = 2, steps = 3;
  const Outcome o =
      run_command({seer_bin(), "run", "--host-time", "modeled", "--cluster", "dgx-h100", "--out",
                   dir.path(), "--torch-traces", "--", example("dp_train"), "-g",
                   std::to_string(ranks), "--steps", std::to_string(steps), "--layers", "2"});
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  // One process drives both GPUs: one file (the process has no rank), both devices.
  const json t = read_json(dir.file("torch/process0.pt.trace.json"));
  EXPECT_EQ(t["schemaVersion"], 1);
  EXPECT_EQ(t["distributedInfo"]["backend"], "nccl");
  EXPECT_EQ(t["distributedInfo"]["rank"], 0);
  ASSERT_EQ(t["deviceProperties"].size(), 2u);
  EXPECT_EQ(t["deviceProperties"][0]["numSms"], 132);
  std::map<std::string, int> cats;
  int profiler_steps = 0, nccl = 0;
  for (const json& e : t["traceEvents"]) {
    cats[e["cat"]]++;
    const std::string name = e["name"];
    profiler_steps += name.rfind("ProfilerStep#", 0) == 0;
    if (name.rfind("ncclDevKernel_AllReduce", 0) == 0) {
      ++nccl;
      EXPECT_EQ(e["args"]["Group size"], ranks);
    }
  }
  EXPECT_GT(cats["kernel"], 0);
  EXPECT_GT(cats["user_annotation"], 0);
  EXPECT_EQ(profiler_steps, steps);
  EXPECT_GT(nccl, 0);
}

TEST(Trace, PipelineSendRecvArrows) {
  TempDir dir;
  const int ranks = 4, steps = 2;
  const Outcome o =
      seer_run("dgx-h100", dir.path(),
               mpirun(ranks, {example("pipeline_1f1b"), "--steps", std::to_string(steps)}));
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  const Trace t = load(dir.file("trace.json"));
  expect_no_overlap(t);
  const auto flows = check_flows(t);
  int p2p = 0;
  for (const auto& [id, evs] : flows) {
    if (evs.front()["name"] != "send/recv") continue;
    ++p2p;
    ASSERT_EQ(evs.size(), 2u);
    // From a stage to its neighbour.
    const int from = evs[0]["pid"], to = evs[1]["pid"];
    EXPECT_EQ(std::abs(from - to), 1) << evs[0].dump() << evs[1].dump();
    EXPECT_LE(evs[0]["ts"].get<double>(), evs[1]["ts"].get<double>() + 1e-9);
  }
  EXPECT_GT(p2p, 0);
}

}  // namespace
}  // namespace seer::e2e
