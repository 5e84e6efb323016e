// With --host-time modeled, the same PyTorch run twice gives byte-identical summary.json, the
// second time with random real-time delays before every message: one process (the main thread
// hands the backward pass to an autograd thread, plus watchdog and other framework threads:
// interposer/client/THREADS.md), and two ranks under torchrun (whose start-up waits for each
// other in the TCPStore, outside CUDA).

#include <filesystem>

#include "torch_util.h"

namespace seer::e2e::torch {
namespace {

using DeterminismTest = TorchTest;

std::vector<std::string> llama_args(bool ddp) {
  std::vector<std::string> args = {"--model", "tiny", "--seq-len", "512", "--steps", "3"};
  if (ddp) args.push_back("--ddp");
  return args;
}

// The second run sleeps a random 0-2 ms of real time before every message each process sends.
void expect_identical_reruns(const std::vector<std::string>& command) {
  std::string summaries[2];
  for (int run = 0; run < 2; ++run) {
    std::string& summary = summaries[run];
    TempDir out;
    const Env env = run == 0 ? Env{} : Env{{"SEER_TEST_JITTER_US", "2000"}};
    const Outcome o = seer_torch("dgx-h100", out.path(), command, "modeled", env);
    ASSERT_EQ(o.exit_code, 0) << o.describe();
    summary = read_file(out.file("summary.json"));
  }
  ASSERT_FALSE(summaries[0].empty());
  EXPECT_TRUE(summaries[0] == summaries[1]) << "the two runs' summary.json differ";
}

TEST_F(DeterminismTest, OneProcessModeledRerunsGiveIdenticalSummaries) {
  expect_identical_reruns(python_command(example("train_llama.py"), llama_args(false)));
}

TEST_F(DeterminismTest, TwoRankModeledRerunsGiveIdenticalSummaries) {
  expect_identical_reruns(torchrun(2, example("train_llama.py"), llama_args(true)));
}

// A preloaded jemalloc takes its own mutexes, reads clocks and yields through Seer's wrappers; none
// of that may pass virtual time between threads (interposer/client/allocator_code.h). Python is a
// non-PIE executable whose malloc address is a stub in the executable, so the malloc in use must be
// found by where it is defined, not by that address.
TEST_F(DeterminismTest, PreloadedJemallocGivesGlibcMallocsSummary) {
  const std::string jemalloc = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2";
  if (!std::filesystem::exists(jemalloc)) {
    GTEST_SKIP() << jemalloc << " is missing (Debian libjemalloc2; scripts/setup.sh installs it)";
  }
  const auto command = python_command(example("train_llama.py"), llama_args(false));
  std::string summaries[3];
  for (int run = 0; run < 3; ++run) {
    TempDir out;
    Env env;
    if (run > 0) env.push_back({"LD_PRELOAD", jemalloc});
    if (run == 2) env.push_back({"SEER_TEST_JITTER_US", "2000"});
    const Outcome o = seer_torch("dgx-h100", out.path(), command, "modeled", env);
    ASSERT_EQ(o.exit_code, 0) << o.describe();
    summaries[run] = read_file(out.file("summary.json"));
  }
  ASSERT_FALSE(summaries[0].empty());
  EXPECT_TRUE(summaries[1] == summaries[0]) << "with jemalloc, summary.json differs";
  EXPECT_TRUE(summaries[2] == summaries[0]) << "with jemalloc and jitter, summary.json differs";
}

}  // namespace
}  // namespace seer::e2e::torch
