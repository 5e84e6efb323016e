// `seer check` through the built binary: every exit path (0 pass, 1 breach, 2 usage or input
// error), the tables it prints, and its JUnit XML read back by an XML parser. The summaries are
// hand-made in the schema seer run writes (check_util.h lists the defaults' metric values).

#include <gtest/gtest.h>

#include <filesystem>

#include "check_util.h"

namespace seer::check_test {
namespace {

// Expects `r` to have exited with `code`; the message shows both streams.
#define EXPECT_EXIT_CODE(r, code) EXPECT_EQ((r).exit_code, (code)) << (r).describe()

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// ---------------------------------------------------------------------------------------------
// Exit 0: everything holds.

TEST(Assertions, AllHoldExit0) {
  TempDir dir;
  const std::string s = write_summary(dir.file("summary.json"));
  const Result r = seer({"check",    s,
                         "--assert", "simulated_time_ms<=100",
                         "--assert", "simulated_time_ms < 0.1001s",
                         "--assert", "kernel_time_ms==50",
                         "--assert", "copy_time_ms>=6000us",
                         "--assert", "nccl_time_ms > 19.9",
                         "--assert", "kernel_count==16",
                         "--assert", "kernel_count!=17",
                         "--assert", "peak_memory_gib<=5GiB",
                         "--assert", "peak_memory_gib < 5121 MiB",
                         "--assert", "peak_memory_bytes==5GiB",
                         "--assert", "peak_memory_bytes>=5368709120",
                         "--assert", "busbw_gbs:AllReduce>=180.25GB/s",
                         "--assert", "busbw_gbs:allgather==90",
                         "--assert", "exit_code==0",
                         "--assert", "simulated_time_ms<=100000000ns"});
  EXPECT_EXIT_CODE(r, 0);
  EXPECT_TRUE(contains(r.out, "PASS: all 15 checks hold")) << r.out;
  EXPECT_TRUE(contains(r.out, "100 ms")) << r.out;
  EXPECT_FALSE(contains(r.out, "FAILED")) << r.out;
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST(Assertions, DirectoryStandsForItsSummary) {
  TempDir dir;
  write_summary(dir.file("summary.json"));
  const Result r = seer({"check", dir.path(), "--assert", "simulated_time_ms<=100"});
  EXPECT_EXIT_CODE(r, 0);
  EXPECT_TRUE(contains(r.out, dir.file("summary.json"))) << r.out;
}

TEST(Assertions, NothingToCheckListsTheMetrics) {
  TempDir dir;
  const std::string s = write_summary(dir.file("summary.json"));
  const Result r = seer({"check", s});
  EXPECT_EXIT_CODE(r, 0);
  for (const char* line : {"simulated_time_ms", "kernel_time_ms", "nccl_time_ms", "5 GiB",
                           "busbw_gbs:AllReduce", "busbw_gbs:AllGather", "(no steps)"}) {
    EXPECT_TRUE(contains(r.out, line)) << line << "\n" << r.out;
  }
}

TEST(Assertions, StepMetricsFromTheStepsObject) {
  TempDir dir;
  FakeRun run;
  run.steps = Steps{};
  const std::string s = write_summary(dir.file("summary.json"), run);
  const Result r = seer({"check", s, "--assert", "step_time_ms==9.5", "--assert",
                         "step_time_p50_ms==9ms", "--assert", "step_time_max_ms<=12ms"});
  EXPECT_EXIT_CODE(r, 0);
  const Result breach = seer({"check", s, "--assert", "step_time_ms<9.5"});
  EXPECT_EXIT_CODE(breach, 1);
}

// ---------------------------------------------------------------------------------------------
// Exit 1: a breach.

TEST(Assertions, BreachExit1) {
  TempDir dir;
  const std::string s = write_summary(dir.file("summary.json"));
  const Result r = seer({"check", s, "--assert", "simulated_time_ms<=99.9", "--assert",
                         "kernel_count==16", "--junit", dir.file("junit.xml")});
  EXPECT_EXIT_CODE(r, 1);
  EXPECT_TRUE(contains(r.out, "FAILED")) << r.out;
  EXPECT_TRUE(contains(r.out, "FAIL: 1 of 2 checks breached")) << r.out;
  const JUnit j = read_junit(dir.file("junit.xml"));
  ASSERT_TRUE(j.ok);
  EXPECT_EQ(j.suite_attrs["tests"], "2");
  EXPECT_EQ(j.suite_attrs["failures"], "1");
  EXPECT_EQ(j.suite_attrs["errors"], "0");
  const JUnitCase* c = j.find("simulated_time_ms<=99.9");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, "failure");
  EXPECT_EQ(c->message, "simulated_time_ms is 100 ms; the assertion wants <= 99.9 ms");
  ASSERT_NE(j.find("kernel_count==16"), nullptr);
  EXPECT_EQ(j.find("kernel_count==16")->status, "pass");
}

TEST(Assertions, EachOperatorBreaches) {
  TempDir dir;
  const std::string s = write_summary(dir.file("summary.json"));
  for (const char* a :
       {"kernel_count<16", "kernel_count<=15", "kernel_count>16", "kernel_count>=17",
        "kernel_count==15", "kernel_count!=16", "busbw_gbs:AllReduce>200", "exit_code!=0"}) {
    const Result r = seer({"check", s, "--assert", a});
    EXPECT_EXIT_CODE(r, 1) << a;
  }
}

TEST(Baseline, RegressionBreachExit1) {
  TempDir dir;
  const std::string base = write_summary(dir.file("base.json"));
  FakeRun slower;
  slower.simulated_ns = 110'000'000;  // +10%
  const std::string cur = write_summary(dir.file("summary.json"), slower);
  const Result r = seer({"check", cur, "--baseline", base, "--max-regression", "5%", "--junit",
                         dir.file("junit.xml")});
  EXPECT_EXIT_CODE(r, 1);
  EXPECT_TRUE(contains(r.out, "REGRESSION")) << r.out;
  EXPECT_TRUE(contains(r.out, "+10.00%")) << r.out;
  const JUnit j = read_junit(dir.file("junit.xml"));
  ASSERT_TRUE(j.ok);
  EXPECT_EQ(j.suite_attrs["tests"], "3");  // simulated, kernel and nccl time; no steps
  EXPECT_EQ(j.suite_attrs["failures"], "1");
  const JUnitCase* c = j.find("simulated_time_ms vs baseline");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, "failure");
  EXPECT_EQ(c->message,
            "simulated_time_ms regressed: 110 ms against 100 ms in the baseline (+10.00%; allowed "
            "+5%)");
  EXPECT_EQ(j.find("kernel_time_ms vs baseline")->status, "pass");
  EXPECT_EQ(j.find("nccl_time_ms vs baseline")->status, "pass");
  EXPECT_EQ(j.properties["max_regression"], "5%");
}

TEST(Baseline, DefaultAllowanceIsFivePercent) {
  TempDir dir;
  const std::string base = write_summary(dir.file("base.json"));
  FakeRun run;
  run.simulated_ns = 105'000'000;  // exactly +5%: allowed
  EXPECT_EXIT_CODE(seer({"check", write_summary(dir.file("a.json"), run), "--baseline", base}), 0);
  run.simulated_ns = 105'000'001;
  EXPECT_EXIT_CODE(seer({"check", write_summary(dir.file("b.json"), run), "--baseline", base}), 1);
}

TEST(Baseline, FractionAndPercentAgree) {
  TempDir dir;
  const std::string base = write_summary(dir.file("base.json"));
  FakeRun run;
  run.gpus[0].nccl_ns += 2'000'000;  // nccl_time_ms 20 -> 22: +10%
  const std::string cur = write_summary(dir.file("summary.json"), run);
  for (const char* allowed : {"10%", "0.1", "12.5%", "1"}) {
    EXPECT_EXIT_CODE(seer({"check", cur, "--baseline", base, "--max-regression", allowed}), 0)
        << allowed;
  }
  for (const char* allowed : {"9.9%", "0.099", "0", "0%"}) {
    const Result r = seer({"check", cur, "--baseline", base, "--max-regression", allowed});
    EXPECT_EXIT_CODE(r, 1) << allowed;
    EXPECT_TRUE(contains(r.out, "nccl_time_ms")) << r.out;
  }
}

TEST(Baseline, ImprovementPasses) {
  TempDir dir;
  const std::string base = write_summary(dir.file("base.json"));
  FakeRun faster;
  faster.simulated_ns = 60'000'000;
  faster.gpus[0].kernel_ns = 10'000'000;
  const std::string cur = write_summary(dir.file("summary.json"), faster);
  const Result r = seer({"check", cur, "--baseline", base, "--max-regression", "0%"});
  EXPECT_EXIT_CODE(r, 0);
  EXPECT_TRUE(contains(r.out, "improved")) << r.out;
  EXPECT_TRUE(contains(r.out, "-40.00%")) << r.out;
}

TEST(Baseline, StepTimeComparedWhenBothHaveSteps) {
  TempDir dir;
  FakeRun run;
  run.steps = Steps{};
  const std::string base = write_summary(dir.file("base.json"), run);
  run.steps->mean_ns = 11'000'000;  // 9.5 -> 11 ms
  const std::string cur = write_summary(dir.file("summary.json"), run);
  const Result r = seer({"check", cur, "--baseline", base, "--junit", dir.file("j.xml")});
  EXPECT_EXIT_CODE(r, 1);
  const JUnit j = read_junit(dir.file("j.xml"));
  ASSERT_TRUE(j.ok);
  ASSERT_NE(j.find("step_time_ms vs baseline"), nullptr);
  EXPECT_EQ(j.find("step_time_ms vs baseline")->status, "failure");
  EXPECT_EQ(j.find("simulated_time_ms vs baseline")->status, "pass");

  // Only one side has steps: not compared, and said so.
  const std::string plain = write_summary(dir.file("plain.json"));
  const Result one = seer({"check", cur, "--baseline", plain});
  EXPECT_EXIT_CODE(one, 0);
  EXPECT_TRUE(contains(one.out, "step_time_ms not compared: the baseline has no steps")) << one.out;
}

TEST(Baseline, DifferentSetupsAreNoted) {
  TempDir dir;
  FakeRun other;
  other.cluster = "dgx-a100";
  other.host_time = "measured";
  const std::string base = write_summary(dir.file("base.json"), other);
  const std::string cur = write_summary(dir.file("summary.json"));
  const Result r = seer({"check", cur, "--baseline", base});
  EXPECT_EXIT_CODE(r, 0);
  EXPECT_TRUE(contains(r.out, "note: the baseline ran on dgx-a100")) << r.out;
  EXPECT_TRUE(contains(r.out, "--host-time measured")) << r.out;
}

// ---------------------------------------------------------------------------------------------
// Exit 2: usage and input errors.

TEST(Errors, UnknownMetricExit2ListsTheKnownOnes) {
  TempDir dir;
  const std::string s = write_summary(dir.file("summary.json"));
  const Result r = seer({"check", s, "--assert", "wall_time_ms<=5"});
  EXPECT_EXIT_CODE(r, 2);
  EXPECT_TRUE(contains(r.err, "unknown metric 'wall_time_ms'")) << r.err;
  for (const char* m : {"simulated_time_ms", "step_time_ms", "step_time_p50_ms", "step_time_max_ms",
                        "kernel_time_ms", "copy_time_ms", "nccl_time_ms", "kernel_count",
                        "peak_memory_gib", "peak_memory_bytes", "busbw_gbs:<Op>", "exit_code"}) {
    EXPECT_TRUE(contains(r.err, m)) << m << "\n" << r.err;
  }
}

TEST(Errors, CorruptJsonExit2) {
  TempDir dir;
  const std::string path = dir.file("summary.json");
  const std::string good = summary_json().dump(2);
  for (const std::string& text : {good.substr(0, good.size() / 2), std::string(""),
                                  std::string("not json"), std::string("[1, 2]")}) {
    write_file(path, text);
    const Result r = seer({"check", path, "--assert", "simulated_time_ms<=100"});
    EXPECT_EXIT_CODE(r, 2) << text;
    EXPECT_TRUE(contains(r.err, path)) << r.err;
  }
}

TEST(Errors, WrongFieldTypeExit2) {
  TempDir dir;
  auto j = summary_json();
  j["simulated_time_ns"] = "fast";
  j["gpus"][1]["kernels"]["time_ns"] = nullptr;
  const std::string path = dir.file("summary.json");
  write_file(path, j.dump());
  Result r = seer({"check", path, "--assert", "simulated_time_ms<=100"});
  EXPECT_EXIT_CODE(r, 2);
  EXPECT_TRUE(contains(r.err, "field simulated_time_ns: expected a number")) << r.err;
  r = seer({"check", path, "--assert", "kernel_time_ms<=100"});
  EXPECT_EXIT_CODE(r, 2);
  EXPECT_TRUE(contains(r.err, "gpus[1].kernels.time_ns")) << r.err;
}

TEST(Errors, WrongSchemaVersionExit2NamesTheFile) {
  TempDir dir;
  auto j = summary_json();
  j["schema_version"] = 2;
  const std::string v2 = dir.file("v2.json");
  write_file(v2, j.dump(2));
  const std::string good = write_summary(dir.file("good.json"));

  Result r = seer({"check", v2, "--assert", "simulated_time_ms<=100"});
  EXPECT_EXIT_CODE(r, 2);
  EXPECT_TRUE(contains(r.err, v2 + ": schema_version 2 is not supported")) << r.err;

  r = seer({"check", good, "--baseline", v2});  // in the baseline
  EXPECT_EXIT_CODE(r, 2);
  EXPECT_TRUE(contains(r.err, "baseline: " + v2 + ": schema_version 2")) << r.err;

  j["schema"] = "seer.run";
  j["schema_version"] = 1;
  const std::string run_json = dir.file("run.json");
  write_file(run_json, j.dump(2));
  r = seer({"check", run_json, "--assert", "simulated_time_ms<=100"});
  EXPECT_EXIT_CODE(r, 2);
  EXPECT_TRUE(contains(r.err, run_json + ": schema is \"seer.run\"")) << r.err;

  j.erase("schema");
  write_file(run_json, j.dump(2));
  EXPECT_EXIT_CODE(seer({"check", run_json, "--assert", "simulated_time_ms<=100"}), 2);
}

TEST(Errors, MissingFileExit2) {
  TempDir dir;
  const std::string good = write_summary(dir.file("good.json"));
  Result r = seer({"check", dir.file("nope.json"), "--assert", "simulated_time_ms<=100"});
  EXPECT_EXIT_CODE(r, 2);
  EXPECT_TRUE(contains(r.err, "cannot read " + dir.file("nope.json"))) << r.err;
  r = seer({"check", good, "--baseline", dir.file("nope.json")});
  EXPECT_EXIT_CODE(r, 2);
  EXPECT_TRUE(contains(r.err, "baseline: cannot read " + dir.file("nope.json"))) << r.err;
  r = seer({"check", dir.path(), "--assert", "simulated_time_ms<=100"});  // no summary.json in it
  EXPECT_EXIT_CODE(r, 2);
}

TEST(Errors, BadAssertionSyntaxExit2) {
  TempDir dir;
  const std::string s = write_summary(dir.file("summary.json"));
  for (const char* a : {"",
                        "simulated_time_ms",
                        "simulated_time_ms<=",
                        "simulated_time_ms=<5",
                        "simulated_time_ms=5",
                        "simulated_time_ms<==5",
                        "simulated_time_ms<=5 parsecs",
                        "simulated_time_ms<=5ms extra",
                        "simulated_time_ms<=5msec",
                        "<=5",
                        "simulated_time_ms<=-5",
                        "simulated_time_ms<=+5",
                        "simulated_time_ms<=nan",
                        "simulated_time_ms<=inf",
                        "simulated_time_ms<=0x10",
                        "simulated_time_ms<=1e999",
                        "simulated_time_ms<=5GiB",
                        "peak_memory_gib<=5ms",
                        "peak_memory_gib<=5GB",
                        "kernel_count<=5ms",
                        "exit_code==0s",
                        "busbw_gbs:AllReduce>=5ms",
                        "busbw_gbs:>=5",
                        "busbw_gbs<=5",
                        "simulated_time_ms<=5,0",
                        "simulated_time_ms <= 5 ; rm -rf /",
                        "Simulated_Time_Ms<=5"}) {
    const Result r = seer({"check", s, "--assert", a});
    EXPECT_EXIT_CODE(r, 2) << "'" << a << "'";
    EXPECT_TRUE(contains(r.err, "--assert")) << r.err;
    EXPECT_TRUE(r.out.empty()) << "nothing is checked after a usage error\n" << r.out;
  }
}

TEST(Errors, BadMaxRegressionExit2) {
  TempDir dir;
  const std::string s = write_summary(dir.file("summary.json"));
  for (const char* m :
       {"", "abc", "-5%", "5", "1.5", "5%%", "%", "5 percent", "0.05.1", "nan", "five%"}) {
    const Result r = seer({"check", s, "--baseline", s, "--max-regression", m});
    EXPECT_EXIT_CODE(r, 2) << "'" << m << "'";
    EXPECT_TRUE(contains(r.err, "--max-regression")) << r.err;
  }
  // A regression allowance needs something to compare with.
  const Result r = seer({"check", s, "--max-regression", "5%"});
  EXPECT_EXIT_CODE(r, 2);
  EXPECT_TRUE(contains(r.err, "--max-regression needs --baseline")) << r.err;
}

TEST(Errors, StepMetricWithoutStepsExit2) {
  TempDir dir;
  const std::string s = write_summary(dir.file("summary.json"));  // no "steps"
  for (const char* a : {"step_time_ms<=120", "step_time_p50_ms<=120", "step_time_max_ms<=120"}) {
    const Result r = seer({"check", s, "--assert", a, "--assert", "simulated_time_ms<=1", "--junit",
                           dir.file("j.xml")});
    EXPECT_EXIT_CODE(r, 2) << a;  // an error outranks the breach next to it
    EXPECT_TRUE(contains(
        r.err,
        "this summary has no steps (no NVTX step ranges and no recurring collective sequence)"))
        << r.err;
    const JUnit j = read_junit(dir.file("j.xml"));
    ASSERT_TRUE(j.ok);
    EXPECT_EQ(j.suite_attrs["errors"], "1");
    EXPECT_EQ(j.suite_attrs["failures"], "1");
    ASSERT_NE(j.find(a), nullptr);
    EXPECT_EQ(j.find(a)->status, "error");
  }
  // A steps object that counted nothing is the same.
  auto j = summary_json();
  j["steps"] = {{"count", 0}, {"mean_ns", 0}, {"p50_ns", 0}, {"max_ns", 0}};
  write_file(dir.file("zero.json"), j.dump());
  EXPECT_EXIT_CODE(seer({"check", dir.file("zero.json"), "--assert", "step_time_ms<=1"}), 2);
}

TEST(Errors, MissingCollectiveExit2) {
  TempDir dir;
  const std::string s = write_summary(dir.file("summary.json"));
  const Result r = seer({"check", s, "--assert", "busbw_gbs:Broadcast>=1"});
  EXPECT_EXIT_CODE(r, 2);
  EXPECT_TRUE(contains(r.err, "no Broadcast collectives")) << r.err;
  EXPECT_TRUE(contains(r.err, "AllReduce AllGather")) << r.err;
}

TEST(Errors, UnwritableJUnitExit2) {
  TempDir dir;
  const std::string s = write_summary(dir.file("summary.json"));
  write_file(dir.file("plain-file"), "x");
  for (const std::string& junit :
       {dir.file("plain-file/junit.xml"), dir.file("plain-file/deeper/junit.xml"), dir.path()}) {
    const Result r = seer({"check", s, "--assert", "simulated_time_ms<=100", "--junit", junit});
    EXPECT_EXIT_CODE(r, 2) << junit;
    EXPECT_TRUE(contains(r.err, "cannot write JUnit report " + junit)) << r.err;
  }
}

TEST(Errors, UsageErrorsOfTheCommandLine) {
  EXPECT_EXIT_CODE(seer({"check"}), 2);  // no SUMMARY
  EXPECT_EXIT_CODE(seer({"check", "a.json", "b.json"}), 2);
  EXPECT_EXIT_CODE(seer({"check", "a.json", "--no-such-option"}), 2);
  EXPECT_EXIT_CODE(seer({"check", "--help"}), 0);
}

// ---------------------------------------------------------------------------------------------
// JUnit.

TEST(JUnit, OneCasePerCheckEscapedProperly) {
  TempDir dir;
  // Quotes, ampersands and angle brackets in the paths and the assertions.
  const std::string odd = dir.file("a&b \"c\" 'd' <e>");
  std::filesystem::create_directories(odd);
  const std::string s = write_summary(odd + "/summary.json");
  FakeRun base_run;
  base_run.gpus[1].kernel_ns = 10'000'000;  // kernel time 40 ms -> 50 ms: +25%
  const std::string base = write_summary(odd + "/base.json", base_run);
  const std::string junit = dir.file("reports/new/check.xml");  // parents are created
  const Result r = seer({"check", s, "--assert", "simulated_time_ms < 100", "--assert",
                         "kernel_count>=16", "--assert", "peak_memory_gib<=4.5", "--baseline", base,
                         "--max-regression", "0.2", "--junit", junit});
  EXPECT_EXIT_CODE(r, 1);
  const JUnit j = read_junit(junit);
  ASSERT_TRUE(j.ok);
  EXPECT_EQ(j.root_tag, "testsuites");
  EXPECT_EQ(j.suites, 1);
  EXPECT_EQ(j.suite_attrs["name"], "seer check");
  EXPECT_EQ(j.suite_attrs["tests"], "6");
  EXPECT_EQ(j.suite_attrs["failures"], "3");
  EXPECT_EQ(j.suite_attrs["errors"], "0");
  EXPECT_EQ(j.root_attrs["tests"], "6");
  EXPECT_EQ(j.root_attrs["failures"], "3");
  EXPECT_EQ(j.properties["summary"], s);
  EXPECT_EQ(j.properties["baseline"], base);
  EXPECT_EQ(j.properties["max_regression"], "20%");
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"simulated_time_ms < 100", "failure"},    {"kernel_count>=16", "pass"},
      {"peak_memory_gib<=4.5", "failure"},       {"simulated_time_ms vs baseline", "pass"},
      {"kernel_time_ms vs baseline", "failure"}, {"nccl_time_ms vs baseline", "pass"}};
  ASSERT_EQ(j.cases.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(j.cases[i].name, expected[i].first);
    EXPECT_EQ(j.cases[i].status, expected[i].second) << expected[i].first;
    EXPECT_EQ(j.cases[i].classname, i < 3 ? "seer.check.assert" : "seer.check.baseline");
  }
  EXPECT_EQ(j.cases[0].message, "simulated_time_ms is 100 ms; the assertion wants < 100 ms");
  EXPECT_EQ(
      j.cases[4].message,
      "kernel_time_ms regressed: 50 ms against 40 ms in the baseline (+25.00%; allowed +20%)");
}

TEST(JUnit, InputErrorsAreRecordedToo) {
  TempDir dir;
  write_file(dir.file("broken.json"), "{\"schema\": ");
  const Result r = seer({"check", dir.file("broken.json"), "--assert", "simulated_time_ms<=1",
                         "--junit", dir.file("j.xml")});
  EXPECT_EXIT_CODE(r, 2);
  const JUnit j = read_junit(dir.file("j.xml"));
  ASSERT_TRUE(j.ok);
  EXPECT_EQ(j.suite_attrs["errors"], "1");
  ASSERT_EQ(j.cases.size(), 1u);
  EXPECT_EQ(j.cases[0].status, "error");
  EXPECT_TRUE(contains(j.cases[0].message, "corrupt JSON")) << j.cases[0].message;

  // The same for a baseline, through seer check and through seer run (which then does not start
  // the program).
  const std::string good = write_summary(dir.file("good.json"));
  const Result c =
      seer({"check", good, "--baseline", dir.file("broken.json"), "--junit", dir.file("k.xml")});
  EXPECT_EXIT_CODE(c, 2);
  const std::string marker = dir.file("ran");
  const Result r2 =
      seer({"run", "--quiet", "--out", dir.file("out"), "--baseline", dir.file("broken.json"),
            "--junit", dir.file("l.xml"), "--", "sh", "-c", "touch '" + marker + "'"});
  EXPECT_EXIT_CODE(r2, 2);
  EXPECT_FALSE(exists(marker));
  for (const char* file : {"k.xml", "l.xml"}) {
    const JUnit k = read_junit(dir.file(file));
    ASSERT_TRUE(k.ok) << file;
    ASSERT_EQ(k.cases.size(), 1u) << file;
    EXPECT_EQ(k.cases[0].name, "baseline");
    EXPECT_EQ(k.cases[0].status, "error");
    EXPECT_TRUE(contains(k.cases[0].message, "baseline: " + dir.file("broken.json")))
        << k.cases[0].message;
  }
}

}  // namespace
}  // namespace seer::check_test
