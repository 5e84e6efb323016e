// CUDA graphs under `seer run` (interposer/client/GRAPHS.md): programs/graphs.cu captures
// kernels, copies and memsets, replays them, and tries the misuses real CUDA refuses. The
// expected times are computed here from the documented models (simcore/README.md).

#include <cuda_runtime_api.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "e2e_util.h"

namespace seer::e2e {
namespace {

using namespace model;

class Graphs : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    outcome_ = new Outcome(seer_run("dgx-h100", dir_->file("out"), {program("graphs")}));
  }
  static void TearDownTestSuite() {
    delete outcome_;
    delete dir_;
  }
  const Outcome& o() { return *outcome_; }

  static TempDir* dir_;
  static Outcome* outcome_;
};

TempDir* Graphs::dir_ = nullptr;
Outcome* Graphs::outcome_ = nullptr;

TEST_F(Graphs, ProgramRunsToTheEnd) {
  ASSERT_EQ(o().exit_code, 0) << o().describe();
  EXPECT_EQ(o().integer("done"), 1);
}

TEST_F(Graphs, UserObjectDestructorRunsLaterNotInsideDestroy) {
  EXPECT_EQ(o().integer("user_object_destroyed_at_destroy"), 0) << o().describe();
  EXPECT_EQ(o().integer("user_object_destroyed_after_sync"), 1);
}

TEST_F(Graphs, CaptureStateIsReported) {
  EXPECT_EQ(o().integer("capturing_status"), cudaStreamCaptureStatusActive) << o().describe();
  EXPECT_EQ(o().integer("capture_deps"), 1);
  EXPECT_EQ(o().integer("after_status"), cudaStreamCaptureStatusNone);
  EXPECT_EQ(o().integer("nodes"), 8 + 4);  // kernels, 64 MiB copy and memset, small ones
}

TEST_F(Graphs, ReplayTakesTheSumOfItsOps) {
  // Per replay: 8 kernels of 65536 x 256 threads, a 64 MiB D2D copy and memset, a 256-byte
  // memset and D2D copy, back to back behind the blocker.
  constexpr int64_t kMiB64 = int64_t{64} << 20;
  const int64_t one = 8 * kernel_ns(kH100, 65536, 256) + d2d_ns(kH100, kMiB64) +
                      memset_ns(kH100, kMiB64) + memset_ns(kH100, 256) + d2d_ns(kH100, 256);
  expect_event_ms(o(), "replays_ms", 5 * one);
}

TEST_F(Graphs, AGraphLaunchCostsTheHostOneLaunch) {
  // Five graph launches between two clock reads: 5 launch costs and the second read.
  expect_ns(o(), "graph_launches_host_ns", 5 * kLaunch + kClockRead);
  // The same 8 kernels launched one by one cost 8 launches.
  expect_ns(o(), "kernel_launches_host_ns", 8 * kLaunch + kClockRead);
  EXPECT_LT(o().integer("graph_launches_host_ns") / 5, o().integer("kernel_launches_host_ns"));
}

TEST_F(Graphs, CapturedBytesMoveAtReplay) {
  EXPECT_EQ(o().integer("byte_before_replay"), 0) << o().describe();
  EXPECT_EQ(o().integer("byte_after_replay"), 7);
  EXPECT_EQ(o().integer("host_calls_before_replay"), 0);
  EXPECT_EQ(o().integer("host_calls_after_replay"), 3);
}

TEST_F(Graphs, ForkJoinAcrossStreams) {
  EXPECT_EQ(o().integer("fork_joined_status"), cudaStreamCaptureStatusActive) << o().describe();
  EXPECT_EQ(o().integer("fork_event_query"), cudaErrorCapturedEvent);
  EXPECT_EQ(o().integer("fork_end"), cudaSuccess);
  EXPECT_EQ(o().integer("fork_nodes"), 4);
  EXPECT_EQ(o().integer("fork_last_node_deps"), 2);  // joins both branches
  EXPECT_EQ(o().integer("fork_s2_after_status"), cudaStreamCaptureStatusNone);
  EXPECT_EQ(o().integer("unjoined_end"), cudaErrorStreamCaptureUnjoined);
}

TEST_F(Graphs, ForkJoinBranchesReplaySideBySide) {
  // kernel; a 1 MiB pinned H2D copy beside a kernel; a kernel after both. Kernels run one at a
  // time (simcore/README.md) but the copy engine overlaps them: a linear replay would take
  // 3 kernels + the copy.
  const int64_t kernel = kernel_ns(kH100, 1, 32);
  const int64_t copy = h2d_pinned_ns(kDgxH100, int64_t{1} << 20);
  const int64_t expected = kernel + std::max(copy, kernel) + kernel;
  expect_event_ms(o(), "fork_replay_ms", expected);
  expect_event_ms(o(), "fork_replay_again_ms", expected);
  EXPECT_LT(expected, 3 * kernel + copy);
}

TEST_F(Graphs, MisuseReturnsWhatCudaReturns) {
  EXPECT_EQ(o().integer("end_not_capturing"), cudaErrorIllegalState) << o().describe();
  EXPECT_EQ(o().integer("capture_legacy"), cudaErrorStreamCaptureImplicit);
  EXPECT_EQ(o().integer("begin_twice"), cudaErrorIllegalState);
  EXPECT_EQ(o().integer("sync_capturing"), cudaErrorStreamCaptureUnsupported);
  EXPECT_EQ(o().integer("launch_after_invalidation"), cudaErrorStreamCaptureInvalidated);
  EXPECT_EQ(o().integer("end_invalidated"), cudaErrorStreamCaptureInvalidated);
  EXPECT_EQ(o().integer("end_invalidated_graph_null"), 1);
  EXPECT_EQ(o().integer("query_capturing"), cudaErrorStreamCaptureUnsupported);
  EXPECT_EQ(o().integer("end_after_query"), cudaErrorStreamCaptureInvalidated);
  EXPECT_EQ(o().integer("legacy_launch"), cudaErrorStreamCaptureImplicit);
  EXPECT_EQ(o().integer("end_after_legacy"), cudaErrorStreamCaptureInvalidated);
  EXPECT_EQ(o().integer("previous_mode"), cudaStreamCaptureModeGlobal);
  EXPECT_EQ(o().integer("restored_mode"), cudaStreamCaptureModeRelaxed);
}

// The driver API (libcuda.so.1 through ctypes): capture, replay, errors, cuGetProcAddress.
TEST(DriverGraphs, CaptureAndReplayThroughTheDriver) {
  TempDir dir;
  const Outcome o = seer_run("dgx-h100", dir.file("out"),
                             {"python3", source_dir() + "/programs/driver_graphs.py"});
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  EXPECT_EQ(o.integer("done"), 1);
  EXPECT_EQ(o.integer("capturing_status"), cudaStreamCaptureStatusActive);
  EXPECT_EQ(o.integer("byte_before_replay"), 0);
  EXPECT_EQ(o.integer("byte_after_replay"), 3);
  EXPECT_EQ(o.integer("end_not_capturing"), cudaErrorIllegalState);
  EXPECT_EQ(o.integer("capture_legacy"), cudaErrorStreamCaptureImplicit);
  EXPECT_EQ(o.integer("proc_cuGraphLaunch"), 1);
  EXPECT_EQ(o.integer("proc_cuStreamBeginCapture"), 1);
  EXPECT_EQ(o.integer("proc_cuStreamGetCaptureInfo"), 1);
}

// A PyTorch program: torch.cuda.graph capture of an MLP forward, replayed with g.replay().
TEST(TorchGraphs, CapturedForwardReplays) {
  const std::string python = SEER_PYTHON;
  if (!std::filesystem::exists(python)) GTEST_SKIP() << "no Python environment at " << python;
  TempDir dir;
  const Outcome o = seer_run("dgx-h100", dir.file("out"),
                             {python, source_dir() + "/programs/torch_graph.py"}, {}, "modeled");
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  EXPECT_EQ(o.text("output_shape"), "64x1024");
  EXPECT_GT(o.number("replay_device_ms"), 0.0);
  // One graph launch per replay instead of a launch per op (and no Python per op).
  EXPECT_LT(o.number("replay_host_us"), o.number("eager_host_us")) << o.describe();
  // The GELU kernel: 3 warm-up forwards, none sent at capture, one per replay, 10 eager.
  const nlohmann::json s = read_json(dir.file("out") + "/summary.json");
  int64_t gelu = 0;
  for (const auto& k : s["kernels"]) {
    if (k["name"].get<std::string>().find("Gelu") != std::string::npos) {
      gelu += k["count"].get<int64_t>();
    }
  }
  EXPECT_EQ(gelu, 3 + 10 + 10) << o.describe();
}

// NCCL inside a capture (2 ranks): the captured all-reduce is issued again at each replay. The
// graph outlives destroy_process_group: its user object's destructor
// (ProcessGroupNCCL::graphCleanupCallback) must not run inside the graph's destruction at exit.
TEST(TorchGraphs, CapturedAllReduceRunsAtEachReplay) {
  const std::string python = SEER_PYTHON;
  if (!std::filesystem::exists(python)) GTEST_SKIP() << "no Python environment at " << python;
  TempDir dir;
  const Outcome o = seer_run("dgx-h100", dir.file("out"),
                             {python, "-m", "torch.distributed.run", "--standalone",
                              "--nproc_per_node", "2", source_dir() + "/programs/nccl_graph.py"},
                             {}, "modeled");
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  const nlohmann::json s = read_json(dir.file("out") + "/summary.json");
  ASSERT_EQ(s["collectives"].size(), 1u) << s["collectives"].dump();
  EXPECT_EQ(s["collectives"][0]["op"], "AllReduce");
  EXPECT_EQ(s["collectives"][0]["bytes"], 4 << 20);
  EXPECT_EQ(s["collectives"][0]["count"], 2 + 5);  // 2 warm-up calls, 5 replays, 0 at capture
}

}  // namespace
}  // namespace seer::e2e
