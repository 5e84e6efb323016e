// `seer run ... --assert/--baseline/--max-regression/--junit -- CMD`: the checks run on the
// summary the run just wrote. One real program, the pipeline demo (examples/cuda/pipeline_demo.cu,
// built by the examples), and small shell commands for the paths where the program fails or never
// starts.

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "check_util.h"

namespace seer::check_test {
namespace {

#define EXPECT_EXIT_CODE(r, code) EXPECT_EQ((r).exit_code, (code)) << (r).describe()

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::vector<std::string> run_args(const std::string& out, std::vector<std::string> checks,
                                  std::vector<std::string> command) {
  std::vector<std::string> a = {"run", "--host-time", "modeled", "--quiet", "--out", out};
  a.insert(a.end(), checks.begin(), checks.end());
  a.push_back("--");
  a.insert(a.end(), command.begin(), command.end());
  return a;
}

TEST(Run, PipelineDemoGatedOnItsSummary) {
  TempDir dir;
  // The baseline: the same program, run once without checks.
  const Result first = seer(run_args(dir.file("base"), {}, {SEER_PIPELINE_DEMO}));
  ASSERT_EQ(first.exit_code, 0) << first.describe();
  const std::string base = dir.file("base/summary.json");
  ASSERT_TRUE(exists(base));

  const std::string out = dir.file("out");
  const std::string junit = dir.file("out/check.xml");
  const Result r =
      seer(run_args(out,
                    {"--assert", "simulated_time_ms<=50", "--assert", "kernel_count==16",
                     "--assert", "peak_memory_gib<=512MiB", "--assert", "exit_code==0",
                     "--baseline", base, "--max-regression", "5%", "--junit", junit},
                    {SEER_PIPELINE_DEMO}));
  EXPECT_EXIT_CODE(r, 0);
  EXPECT_TRUE(contains(r.out, "cuda events:")) << "the program's own output\n" << r.out;
  EXPECT_TRUE(contains(r.err, "PASS: all 7 checks hold")) << r.err;
  const JUnit j = read_junit(junit);
  ASSERT_TRUE(j.ok);
  EXPECT_EQ(j.suite_attrs["tests"], "7");
  EXPECT_EQ(j.suite_attrs["failures"], "0");
  EXPECT_EQ(j.suite_attrs["errors"], "0");
  EXPECT_EQ(j.properties["summary"], out + "/summary.json");
  ASSERT_NE(j.find("simulated_time_ms<=50"), nullptr);
  EXPECT_EQ(j.find("simulated_time_ms<=50")->status, "pass");
  ASSERT_NE(j.find("simulated_time_ms vs baseline"), nullptr);
  EXPECT_EQ(j.find("simulated_time_ms vs baseline")->status, "pass");

  // The same run against a baseline twice as fast, with an assertion it cannot meet: exit 1.
  nlohmann::json fast = nlohmann::json::parse(read_file(base));
  fast["simulated_time_ns"] = fast["simulated_time_ns"].get<int64_t>() / 2;
  const std::string fast_base = dir.file("fast.json");
  write_file(fast_base, fast.dump(2));
  const Result breach = seer(run_args(out,
                                      {"--assert", "simulated_time_ms<=1", "--baseline", fast_base,
                                       "--max-regression", "0.05", "--junit", junit},
                                      {SEER_PIPELINE_DEMO}));
  EXPECT_EXIT_CODE(breach, 1);
  EXPECT_TRUE(contains(breach.err, "REGRESSION")) << breach.err;
  const JUnit jb = read_junit(junit);
  ASSERT_TRUE(jb.ok);
  EXPECT_EQ(jb.suite_attrs["failures"], "2");
  EXPECT_EQ(jb.find("simulated_time_ms<=1")->status, "failure");
  EXPECT_EQ(jb.find("simulated_time_ms vs baseline")->status, "failure");
  EXPECT_EQ(jb.find("kernel_time_ms vs baseline")->status, "pass");

  // The program has no NVTX steps: a step-time gate is an input error, after the run.
  const Result steps = seer(run_args(out, {"--assert", "step_time_ms<=120"}, {SEER_PIPELINE_DEMO}));
  EXPECT_EXIT_CODE(steps, 2);
  EXPECT_TRUE(contains(steps.err, "this summary has no steps")) << steps.err;
}

TEST(Run, ProgramFailureKeepsItsExitCode) {
  TempDir dir;
  const std::string junit = dir.file("j.xml");
  const Result r =
      seer(run_args(dir.file("out"), {"--assert", "simulated_time_ms<=50", "--junit", junit},
                    {"sh", "-c", "exit 7"}));
  EXPECT_EXIT_CODE(r, 7);
  EXPECT_TRUE(contains(r.err, "the run exited with status 7")) << r.err;
  const JUnit j = read_junit(junit);
  ASSERT_TRUE(j.ok);
  ASSERT_NE(j.find("seer run"), nullptr);
  EXPECT_EQ(j.find("seer run")->status, "failure");
  ASSERT_NE(j.find("simulated_time_ms<=50"), nullptr);  // its summary is still checked
  EXPECT_EQ(j.find("simulated_time_ms<=50")->status, "pass");
}

TEST(Run, StaleSummaryIsNotChecked) {
  TempDir dir;
  // A summary from an earlier run sits in --out; this run fails before writing one.
  const std::string out = dir.file("out");
  std::filesystem::create_directories(out);
  write_summary(out + "/summary.json");
  const std::string junit = dir.file("j.xml");
  const Result r = seer({"run", "--cluster", "no-such-cluster", "--out", out, "--assert",
                         "simulated_time_ms<=500", "--junit", junit, "--", "sh", "-c", "exit 0"});
  EXPECT_EXIT_CODE(r, 2);
  EXPECT_TRUE(contains(r.err, "wrote no summary")) << r.err;
  const JUnit j = read_junit(junit);
  ASSERT_TRUE(j.ok);
  ASSERT_EQ(j.cases.size(), 1u);
  EXPECT_EQ(j.cases[0].name, "seer run");
  EXPECT_EQ(j.cases[0].status, "failure");
}

TEST(Run, CheckMistakesStopBeforeTheProgramStarts) {
  TempDir dir;
  const std::string marker = dir.file("ran");
  const std::vector<std::string> touch = {"sh", "-c", "touch '" + marker + "'"};
  const std::string good = write_summary(dir.file("good.json"));
  write_file(dir.file("plain-file"), "x");
  const std::vector<std::vector<std::string>> mistakes = {
      {"--assert", "no_such_metric<=1"},
      {"--assert", "simulated_time_ms<<1"},
      {"--baseline", good, "--max-regression", "5"},
      {"--max-regression", "5%"},
      {"--baseline", dir.file("missing.json")},
      {"--assert", "simulated_time_ms<=1", "--junit", dir.file("plain-file/j.xml")},
  };
  for (const auto& m : mistakes) {
    const Result r = seer(run_args(dir.file("out"), m, touch));
    EXPECT_EXIT_CODE(r, 2) << m[0] << " " << m[1];
    EXPECT_TRUE(contains(r.err, "seer run: check: ")) << r.err;
    EXPECT_FALSE(exists(marker)) << "the program ran despite " << m[0] << " " << m[1];
  }
  // Checks need --out.
  const Result r = seer({"run", "--quiet", "--assert", "simulated_time_ms<=1", "--", "sh", "-c",
                         "touch '" + marker + "'"});
  EXPECT_EXIT_CODE(r, 2);
  EXPECT_TRUE(contains(r.err, "need --out DIR")) << r.err;
  EXPECT_FALSE(exists(marker));
}

TEST(Run, WithoutChecksNothingChanges) {
  TempDir dir;
  const Result r = seer(run_args(dir.file("out"), {}, {"sh", "-c", "exit 3"}));
  EXPECT_EXIT_CODE(r, 3);
  EXPECT_FALSE(contains(r.err, "check")) << r.err;
}

}  // namespace
}  // namespace seer::check_test
