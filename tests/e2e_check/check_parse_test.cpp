// The parsers and the XML escaping of `seer check`, called directly (frontend/src/check).

#include <gtest/gtest.h>

#include "expr.h"
#include "junit.h"
#include "metrics.h"

namespace seer::check {
namespace {

TEST(Parse, AssertionForms) {
  Assertion a = parse_assertion("step_time_ms<=120");
  EXPECT_EQ(a.metric.name, "step_time_ms");
  EXPECT_EQ(a.op, Op::kLe);
  EXPECT_EQ(a.value, 120);
  EXPECT_EQ(a.text, "step_time_ms<=120");

  a = parse_assertion("  simulated_time_ms  >  1.5s ");
  EXPECT_EQ(a.text, "simulated_time_ms  >  1.5s");
  EXPECT_EQ(a.op, Op::kGt);
  EXPECT_EQ(a.value, 1500);

  EXPECT_EQ(parse_assertion("simulated_time_ms<250us").value, 0.25);
  EXPECT_EQ(parse_assertion("simulated_time_ms<2.5e3").value, 2500);
  EXPECT_EQ(parse_assertion("simulated_time_ms<.5").value, 0.5);
  EXPECT_EQ(parse_assertion("simulated_time_ms<5.").value, 5);
  // ns are divided, so an exact nanosecond count equals the metric computed from the summary.
  EXPECT_EQ(parse_assertion("simulated_time_ms==11368398ns").value, 11368398 / 1e6);
  EXPECT_EQ(parse_assertion("peak_memory_gib<512MiB").value, 0.5);
  EXPECT_EQ(parse_assertion("peak_memory_gib<2TiB").value, 2048);
  EXPECT_EQ(parse_assertion("peak_memory_gib<1073741824B").value, 1);
  EXPECT_EQ(parse_assertion("peak_memory_bytes<=1KiB").value, 1024);
  EXPECT_EQ(parse_assertion("peak_memory_bytes<=3 GiB").value, 3.0 * (1 << 30));
  EXPECT_EQ(parse_assertion("busbw_gbs:AllReduce>=150 GB/s").value, 150);
  EXPECT_EQ(parse_assertion("busbw_gbs:AllReduce>=150").metric.name, "busbw_gbs:AllReduce");
  EXPECT_EQ(parse_assertion("exit_code!=0").op, Op::kNe);
  EXPECT_EQ(parse_assertion("kernel_count==16").op, Op::kEq);
  EXPECT_EQ(parse_assertion("kernel_count>=16").op, Op::kGe);
  EXPECT_EQ(parse_assertion("kernel_count<16").op, Op::kLt);
}

TEST(Parse, AssertionErrorsSayWhat) {
  const auto message = [](const std::string& text) -> std::string {
    try {
      parse_assertion(text);
    } catch (const InputError& e) {
      return e.what();
    }
    return "(accepted)";
  };
  EXPECT_NE(message("foo<=1").find("unknown metric 'foo'; known metrics:"), std::string::npos);
  EXPECT_NE(message("kernel_count<=1ms").find("'ms' is not a unit for kernel_count"),
            std::string::npos);
  EXPECT_NE(message("peak_memory_gib<=1GB").find("allowed: B, KiB, MiB, GiB, TiB"),
            std::string::npos);
  EXPECT_NE(message("simulated_time_ms~1").find("no comparison operator"), std::string::npos);
  EXPECT_NE(message("simulated_time_ms<=x").find("expected a number"), std::string::npos);
  EXPECT_NE(message("simulated_time_ms<=1e400").find("out of range"), std::string::npos);
}

TEST(Parse, Holds) {
  const Assertion le = parse_assertion("simulated_time_ms<=10");
  EXPECT_TRUE(holds(le, 10));
  EXPECT_TRUE(holds(le, 9.99));
  EXPECT_FALSE(holds(le, 10.01));
  const Assertion lt = parse_assertion("simulated_time_ms<10");
  EXPECT_FALSE(holds(lt, 10));
  EXPECT_TRUE(holds(lt, 9.99));
  const Assertion eq = parse_assertion("simulated_time_ms==0.3");
  EXPECT_TRUE(holds(eq, 0.1 + 0.2));  // equal to within 1 part in 10^9
  EXPECT_FALSE(holds(eq, 0.3001));
  const Assertion ne = parse_assertion("kernel_count!=0");
  EXPECT_TRUE(holds(ne, 1));
  EXPECT_FALSE(holds(ne, 0));
  EXPECT_TRUE(holds(parse_assertion("kernel_count>=3"), 3));
  EXPECT_FALSE(holds(parse_assertion("kernel_count>3"), 3));
}

TEST(Parse, MaxRegression) {
  EXPECT_DOUBLE_EQ(parse_max_regression("5%"), 0.05);
  EXPECT_DOUBLE_EQ(parse_max_regression("0.05"), 0.05);
  EXPECT_DOUBLE_EQ(parse_max_regression("150%"), 1.5);
  EXPECT_DOUBLE_EQ(parse_max_regression("1"), 1.0);
  EXPECT_DOUBLE_EQ(parse_max_regression("0"), 0.0);
  EXPECT_DOUBLE_EQ(parse_max_regression("2.5 %"), 0.025);
  for (const char* bad : {"", "5", "-1%", "abc", "5%%", "% 5", "5 pct", "inf", "1e999%"}) {
    EXPECT_THROW(parse_max_regression(bad), InputError) << bad;
  }
}

TEST(Parse, MetricTable) {
  for (const char* name :
       {"simulated_time_ms", "peak_memory_gib", "peak_memory_bytes", "kernel_time_ms",
        "copy_time_ms", "nccl_time_ms", "kernel_count", "step_time_ms", "step_time_p50_ms",
        "step_time_max_ms", "busbw_gbs:AllReduce", "exit_code"}) {
    EXPECT_TRUE(find_metric(name).has_value()) << name;
  }
  EXPECT_FALSE(find_metric("busbw_gbs:<Op>").has_value());
  EXPECT_FALSE(find_metric("busbw_gbs:").has_value());
  EXPECT_FALSE(find_metric("busbw_gbs").has_value());
  // The baseline compares the lower-is-better times.
  std::vector<std::string> compared;
  for (const Metric& m : metric_table()) {
    if (m.compared_to_baseline) compared.push_back(m.name);
    EXPECT_FALSE(m.description.empty()) << m.name;
  }
  EXPECT_EQ(compared, (std::vector<std::string>{"simulated_time_ms", "step_time_ms",
                                                "kernel_time_ms", "nccl_time_ms"}));
}

TEST(Xml, Escape) {
  EXPECT_EQ(xml_escape("a<b>&\"c\"'d'"), "a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;");
  EXPECT_EQ(xml_escape("line\nnext\ttab"), "line&#10;next&#9;tab");
  EXPECT_EQ(xml_escape(std::string("nul\0bell\a", 9)),
            "nul\xEF\xBF\xBD"
            "bell\xEF\xBF\xBD");
  EXPECT_EQ(xml_escape("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"),
            "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");  // valid UTF-8 stays
  EXPECT_EQ(xml_escape("bad\xFF\xC3"), "bad\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(xml_escape("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
  EXPECT_EQ(xml_escape("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");                  // overlong
}

TEST(Xml, Document) {
  const std::string x =
      junit_xml({{"seer.check.assert", "a<b", TestCase::Status::kPass, "", ""},
                 {"seer.check.assert", "c", TestCase::Status::kFailure, "m\"1", "d&1"},
                 {"seer.check.input", "e", TestCase::Status::kError, "m2", "d2"}},
                {{"summary", "x&y"}});
  EXPECT_NE(x.find("<testsuites name=\"seer check\" tests=\"3\" failures=\"1\" errors=\"1\">"),
            std::string::npos)
      << x;
  EXPECT_NE(x.find("<testcase name=\"a&lt;b\" classname=\"seer.check.assert\" time=\"0\"/>"),
            std::string::npos)
      << x;
  EXPECT_NE(x.find("<failure message=\"m&quot;1\" type=\"breach\">d&amp;1</failure>"),
            std::string::npos)
      << x;
  EXPECT_NE(x.find("<error message=\"m2\" type=\"input\">d2</error>"), std::string::npos) << x;
  EXPECT_NE(x.find("<property name=\"summary\" value=\"x&amp;y\"/>"), std::string::npos) << x;
}

}  // namespace
}  // namespace seer::check
