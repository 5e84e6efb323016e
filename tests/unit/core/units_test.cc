// Strict unit parsers (runtime/include/seer/runtime/units.h, runtime/presets/README.md).

#include "seer/runtime/units.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "seer/runtime/cluster.h"

namespace seer::rt {
namespace {

// Runs `f` expecting a ClusterError and returns its message ("" and a failure otherwise).
template <typename F>
std::string ErrorOf(F f) {
  try {
    f();
  } catch (const ClusterError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw something other than ClusterError: " << e.what();
    return "";
  }
  ADD_FAILURE() << "did not throw";
  return "";
}

#define EXPECT_MESSAGE_HAS(message, part) \
  EXPECT_NE(std::string(message).find(part), std::string::npos) << "message: " << (message)

TEST(ParseBandwidth, DecimalUnits) {
  EXPECT_DOUBLE_EQ(parse_bandwidth("f", "1B/s"), 1);
  EXPECT_DOUBLE_EQ(parse_bandwidth("f", "2KB/s"), 2e3);
  EXPECT_DOUBLE_EQ(parse_bandwidth("f", "3MB/s"), 3e6);
  EXPECT_DOUBLE_EQ(parse_bandwidth("f", "450GB/s"), 450e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("f", "1.5TB/s"), 1.5e12);
  EXPECT_DOUBLE_EQ(parse_bandwidth("f", "3.35TB/s"), 3.35e12);
}

TEST(ParseBandwidth, BinaryUnits) {
  EXPECT_DOUBLE_EQ(parse_bandwidth("f", "1KiB/s"), 1024);
  EXPECT_DOUBLE_EQ(parse_bandwidth("f", "2MiB/s"), 2 * 1048576.0);
  EXPECT_DOUBLE_EQ(parse_bandwidth("f", "1GiB/s"), 1073741824.0);
  EXPECT_DOUBLE_EQ(parse_bandwidth("f", "0.5GiB/s"), 536870912.0);
}

TEST(ParseBandwidth, BitsPerSecondAreDividedByEight) {
  EXPECT_DOUBLE_EQ(parse_bandwidth("f", "400Gbps"), 50e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("f", "100Gbps"), 12.5e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("f", "8bps"), 1);
  EXPECT_DOUBLE_EQ(parse_bandwidth("f", "800Kbps"), 1e5);
  EXPECT_DOUBLE_EQ(parse_bandwidth("f", "100Mbps"), 12.5e6);
  EXPECT_DOUBLE_EQ(parse_bandwidth("f", "1.6Tbps"), 200e9);
}

TEST(ParseBandwidth, WhitespaceAndExponents) {
  EXPECT_DOUBLE_EQ(parse_bandwidth("f", "25 GB/s"), 25e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("f", "  25GB/s  "), 25e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("f", "1e3GB/s"), 1e12);
}

TEST(ParseBandwidth, Errors) {
  const std::string field = "node.scale_up.bandwidth";
  for (const std::string text : {"450", "450GBps", "450gb/s", "450 GB/s extra", "-5GB/s", "fast",
                                 "", "GB/s", "nanGB/s", "infGB/s", "450GB"}) {
    SCOPED_TRACE(text);
    const std::string m = ErrorOf([&] { parse_bandwidth(field, text); });
    EXPECT_MESSAGE_HAS(m, field);
    EXPECT_MESSAGE_HAS(m, "'" + text + "'");
  }
  // Missing or unknown units list the known ones.
  const std::string m = ErrorOf([&] { parse_bandwidth(field, "450"); });
  EXPECT_MESSAGE_HAS(m, "GB/s");
  EXPECT_MESSAGE_HAS(m, "Gbps");
  EXPECT_MESSAGE_HAS(m, "GiB/s");
  // Zero bandwidth would divide by zero in the copy model.
  const std::string zero = ErrorOf([&] { parse_bandwidth(field, "0GB/s"); });
  EXPECT_MESSAGE_HAS(zero, field);
  EXPECT_MESSAGE_HAS(zero, "'0GB/s'");
  EXPECT_MESSAGE_HAS(zero, "positive");
}

TEST(ParseBytes, Units) {
  EXPECT_EQ(parse_bytes("f", "0B"), 0);
  EXPECT_EQ(parse_bytes("f", "512B"), 512);
  EXPECT_EQ(parse_bytes("f", "1KB"), 1000);
  EXPECT_EQ(parse_bytes("f", "2MB"), 2000000);
  EXPECT_EQ(parse_bytes("f", "40GB"), 40000000000);
  EXPECT_EQ(parse_bytes("f", "1TB"), 1000000000000);
  EXPECT_EQ(parse_bytes("f", "1KiB"), 1024);
  EXPECT_EQ(parse_bytes("f", "1.5KiB"), 1536);
  EXPECT_EQ(parse_bytes("f", "3MiB"), 3 * 1048576);
  EXPECT_EQ(parse_bytes("f", "80GiB"), int64_t{80} << 30);
  EXPECT_EQ(parse_bytes("f", "1TiB"), int64_t{1} << 40);
  EXPECT_EQ(parse_bytes("f", "141 GB"), 141000000000);
}

TEST(ParseBytes, Errors) {
  const std::string field = "node.gpu_memory";
  for (const std::string text : {"1024", "10gib", "10GiB/s", "-1GiB", "lots", "", "10 Gib"}) {
    SCOPED_TRACE(text);
    const std::string m = ErrorOf([&] { parse_bytes(field, text); });
    EXPECT_MESSAGE_HAS(m, field);
    EXPECT_MESSAGE_HAS(m, "'" + text + "'");
  }
  EXPECT_MESSAGE_HAS(ErrorOf([&] { parse_bytes(field, "1024"); }), "GiB");
}

TEST(ParseDuration, Units) {
  EXPECT_EQ(parse_duration_ns("f", "0ns"), 0);
  EXPECT_EQ(parse_duration_ns("f", "300ns"), 300);
  EXPECT_EQ(parse_duration_ns("f", "2us"), 2000);
  EXPECT_EQ(parse_duration_ns("f", "1.5us"), 1500);
  EXPECT_EQ(parse_duration_ns("f", "1.5ms"), 1500000);
  EXPECT_EQ(parse_duration_ns("f", "2s"), 2000000000);
  EXPECT_EQ(parse_duration_ns("f", "2 us"), 2000);
  EXPECT_EQ(parse_duration_ns("f", "0.4ns"), 0);  // rounded to the nearest ns
  EXPECT_EQ(parse_duration_ns("f", "2.6ns"), 3);
}

TEST(ParseDuration, Errors) {
  const std::string field = "node.host_link.latency";
  for (const std::string text : {"2", "2µs", "2 sec", "2US", "-2us", "soon", "", "us"}) {
    SCOPED_TRACE(text);
    const std::string m = ErrorOf([&] { parse_duration_ns(field, text); });
    EXPECT_MESSAGE_HAS(m, field);
    EXPECT_MESSAGE_HAS(m, "'" + text + "'");
  }
  const std::string m = ErrorOf([&] { parse_duration_ns(field, "2"); });
  EXPECT_MESSAGE_HAS(m, "ns");
  EXPECT_MESSAGE_HAS(m, "us");
  EXPECT_MESSAGE_HAS(m, "ms");
}

// Values beyond int64 (1e12 s = 1e21 ns; 1e10 TiB) go through std::llround, whose result is
// unspecified on overflow (glibc returns INT64_MIN): the parsers return a negative quantity
// instead of rejecting the text. Expected: ClusterError naming the field and the text.
TEST(ParseDuration, OutOfRangeIsAnError) {
  const std::string m = ErrorOf([] { parse_duration_ns("node.host_link.latency", "1e12s"); });
  EXPECT_MESSAGE_HAS(m, "node.host_link.latency");
  EXPECT_MESSAGE_HAS(m, "'1e12s'");
}

TEST(ParseBytes, OutOfRangeIsAnError) {
  const std::string m = ErrorOf([] { parse_bytes("node.gpu_memory", "1e10TiB"); });
  EXPECT_MESSAGE_HAS(m, "node.gpu_memory");
  EXPECT_MESSAGE_HAS(m, "'1e10TiB'");
}

}  // namespace
}  // namespace seer::rt
