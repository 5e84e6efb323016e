// trace.json's event writer: what it writes must parse back to the same values nlohmann would
// have written, for plain and awkward strings, integers, whole and fractional doubles, and
// nested objects and arrays.
#include "trace_event_text.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

namespace seer::rt {
namespace {

using nlohmann::json;

json parsed(const TraceEventText& events) { return json::parse("[" + events.json() + "]"); }

TEST(TraceEventText, WritesEventsThatParseBackToTheSameValues) {
  TraceEventText events;
  events.begin()
      .text("ph", "X")
      .text("name", "gemm \"tiled\" \\ 64\tx\n64 \xc3\xa9")
      .number("pid", -3)
      .number("tid", std::uint64_t{18'446'744'073'709'551'615u})
      .number("ts", 1234.5)
      .number("dur", 3.0)
      .number("tiny", 1e-7)
      .number("huge", 2.5e21)
      .object("args")
      .numbers("grid", {1, -2, 3})
      .number("submit_us", 0.001)
      .end()
      .end();
  events.push_back(json{{"ph", "M"}, {"args", {{"name", "rank 0"}}}});
  events.begin().text("ph", "C").number("nan", std::numeric_limits<double>::quiet_NaN()).end();

  const json all = parsed(events);
  ASSERT_EQ(all.size(), 3u);
  const json& x = all[0];
  EXPECT_EQ(x["name"], "gemm \"tiled\" \\ 64\tx\n64 \xc3\xa9");
  EXPECT_EQ(x["pid"], -3);
  EXPECT_EQ(x["tid"].get<std::uint64_t>(), 18'446'744'073'709'551'615u);
  EXPECT_EQ(x["ts"].get<double>(), 1234.5);
  EXPECT_TRUE(x["dur"].is_number_float());  // 3.0 stays a float, as nlohmann writes it
  EXPECT_EQ(x["dur"].get<double>(), 3.0);
  EXPECT_EQ(x["tiny"].get<double>(), 1e-7);
  EXPECT_EQ(x["huge"].get<double>(), 2.5e21);
  EXPECT_EQ(x["args"]["grid"], json::array({1, -2, 3}));
  EXPECT_EQ(x["args"]["submit_us"].get<double>(), 0.001);
  EXPECT_EQ(all[1]["args"]["name"], "rank 0");
  EXPECT_TRUE(all[2]["nan"].is_null());
  // Keys keep the order they were written in.
  EXPECT_EQ(events.json().substr(0, 15), "{\"ph\":\"X\",\"name");
}

TEST(TraceEventText, DoublesRoundTripExactly) {
  TraceEventText events;
  const double values[] = {0.1, 1.0 / 3, 123456789.123, 5e-324, 1.7976931348623157e308, -0.0};
  const char* const keys[] = {"a", "b", "c", "d", "e", "f"};
  static_assert(std::size(keys) == std::size(values));
  events.begin();
  for (size_t i = 0; i < std::size(values); ++i) events.number(keys[i], values[i]);
  events.end();
  const json e = parsed(events)[0];
  for (size_t i = 0; i < std::size(values); ++i) {
    EXPECT_EQ(e[keys[i]].get<double>(), values[i]) << keys[i];
  }
}

TEST(TraceEventText, WritesInvalidUtf8AsReplacementCharacters) {
  TraceEventText events;
  events.begin().text("name", "bad \xff byte").end();
  events.push_back(json{{"name", "also \xc3 bad"}});
  const json all = parsed(events);
  EXPECT_EQ(all[0]["name"], "bad \xef\xbf\xbd byte");
  EXPECT_EQ(all[1]["name"], "also \xef\xbf\xbd bad");
}

}  // namespace
}  // namespace seer::rt
