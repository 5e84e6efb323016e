// Payload: copies and memsets move the program's bytes through the device shadow up to the size
// limit; larger transfers leave zeros; collective results are written in program order.

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "device_memory.h"
#include "payload.h"

namespace seer::client {
namespace {

class PayloadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static bool configured = false;
    if (!configured) {
      wire::Welcome w;
      auto* g = w.add_gpus();
      g->set_memory_bytes(int64_t{8} << 30);
      DeviceMemory::instance().configure(w);
      configured = true;
    }
    payload.set_max_bytes(1 << 20);
    ASSERT_EQ(DeviceMemory::instance().allocate(0, 4 << 20, base), DeviceMemory::AllocResult::kOk);
    dev = reinterpret_cast<char*>(base);
  }
  void TearDown() override { DeviceMemory::instance().release(base); }

  std::vector<unsigned char> read_back(const void* src, size_t n) {
    std::vector<unsigned char> out(n, 0xee);
    payload.copy(out.data(), src, n, wire::COPY_D2H);
    return out;
  }

  Payload& payload = Payload::instance();
  uint64_t base = 0;
  char* dev = nullptr;
};

TEST_F(PayloadTest, HostToDeviceToHostRoundTrips) {
  std::vector<unsigned char> in(4096);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<unsigned char>(i * 7);
  payload.copy(dev + 100, in.data(), in.size(), wire::COPY_H2D);
  EXPECT_EQ(read_back(dev + 100, in.size()), in);
  // Never written bytes read as zeros; the device range itself stays inaccessible to the host.
  EXPECT_EQ(read_back(dev + (3 << 20), 16), std::vector<unsigned char>(16, 0));
  EXPECT_EQ(DeviceMemory::instance().find(base)->base, base);
}

TEST_F(PayloadTest, DeviceToDeviceAndHostToHost) {
  const char text[] = "seer payload";
  payload.copy(dev, text, sizeof text, wire::COPY_H2D);
  payload.copy(dev + 8192, dev, sizeof text, wire::COPY_D2D);
  char out[sizeof text] = {};
  payload.copy(out, dev + 8192, sizeof text, wire::COPY_D2H);
  EXPECT_STREQ(out, text);
  char host[sizeof text] = {};
  payload.copy(host, text, sizeof text, wire::COPY_H2H);
  EXPECT_STREQ(host, text);
}

TEST_F(PayloadTest, FillsOneTwoAndFourByteElements) {
  payload.fill(dev, 0xab, 1, 3);
  payload.fill(dev + 4, 0x1234, 2, 2);
  payload.fill(dev + 8, 0xdeadbeef, 4, 1);
  const std::vector<unsigned char> want{0xab, 0xab, 0xab, 0x00, 0x34, 0x12,
                                        0x34, 0x12, 0xef, 0xbe, 0xad, 0xde};
  EXPECT_EQ(read_back(dev, want.size()), want);
}

TEST_F(PayloadTest, TransfersAboveTheLimitLeaveZeros) {
  payload.set_max_bytes(4096);
  std::vector<unsigned char> ones(8192, 1);
  payload.copy(dev, ones.data(), 4096, wire::COPY_H2D);  // at the limit: carried
  EXPECT_EQ(read_back(dev, 4096), std::vector<unsigned char>(4096, 1));
  payload.copy(dev, ones.data(), ones.size(), wire::COPY_H2D);  // above: payload-free
  EXPECT_EQ(read_back(dev, ones.size()), std::vector<unsigned char>(ones.size(), 0));
  payload.fill(dev, 7, 1, 100);
  payload.fill(dev, 7, 4, 2048);  // 8 KiB memset: zeros
  EXPECT_EQ(read_back(dev, 100), std::vector<unsigned char>(100, 0));
}

TEST_F(PayloadTest, CollectiveInputsAndResultsInProgramOrder) {
  const int values[4] = {1, 2, 3, 4};
  payload.copy(dev, values, sizeof values, wire::COPY_H2D);
  const std::string in = payload.read(dev, sizeof values);
  ASSERT_EQ(in.size(), sizeof values);
  EXPECT_EQ(std::memcmp(in.data(), values, sizeof values), 0);
  // Two results for overlapping ranges: the later one wins even if it arrives first.
  const uint64_t first = payload.expect(dev, 8);
  const uint64_t second = payload.expect(dev + 4, 8);
  payload.apply(second, std::string("\x22\x22\x22\x22\x33\x33\x33\x33", 8));
  EXPECT_EQ(payload.pending(), 2u);  // waits behind the first
  payload.apply(first, std::string("\x11\x11\x11\x11\x11\x11\x11\x11", 8));
  EXPECT_EQ(payload.pending(), 0u);
  const std::vector<unsigned char> want{0x11, 0x11, 0x11, 0x11, 0x22, 0x22,
                                        0x22, 0x22, 0x33, 0x33, 0x33, 0x33};
  EXPECT_EQ(read_back(dev, want.size()), want);
  // A host pointer that is neither device nor pinned memory contributes zeros.
  int host = 5;
  EXPECT_EQ(payload.read(&host, 4), std::string(4, '\0'));
}

TEST_F(PayloadTest, InputsOfZerosTravelAsNothing) {
  EXPECT_EQ(payload.input(dev + (1 << 20), 1 << 20), "");  // never written
  payload.fill(dev, 0, 1, 4096);
  EXPECT_EQ(payload.input(dev, 4096), "");
  // One byte in the middle of a mostly zero buffer: every byte, as read() gives them.
  const char one = 1;
  payload.copy(dev + 3000, &one, 1, wire::COPY_H2D);
  const std::string in = payload.input(dev, 8192);
  EXPECT_EQ(in, payload.read(dev, 8192));
  EXPECT_EQ(in[3000], 1);
  int host = 5;  // neither device nor pinned memory: zeros
  EXPECT_EQ(payload.input(&host, 4), "");
}

TEST_F(PayloadTest, ZeroResultsClearWhatTheOutputHeld) {
  std::vector<unsigned char> data(3 * 4096 + 100);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<unsigned char>(i % 251 + 1);
  payload.copy(dev + 5000, data.data(), data.size(), wire::COPY_H2D);
  // A result of zeros over part of that data, another over never written memory.
  const uint64_t first = payload.expect(dev + 4096, 8192);
  const uint64_t second = payload.expect(dev + (2 << 20), 65536);
  payload.apply(second, "", 65536);
  payload.apply(first, "", 8192);
  EXPECT_EQ(payload.pending(), 0u);
  EXPECT_EQ(read_back(dev + 4096, 8192), std::vector<unsigned char>(8192, 0));
  const size_t kept = 5000 + data.size() - (4096 + 8192);  // the data after the result
  EXPECT_EQ(read_back(dev + 4096 + 8192, kept),
            std::vector<unsigned char>(data.end() - static_cast<std::ptrdiff_t>(kept), data.end()));
  EXPECT_EQ(read_back(dev + (2 << 20), 65536), std::vector<unsigned char>(65536, 0));
  // In program order with a result of bytes: a later result of zeros wins, and the reverse.
  const uint64_t bytes = payload.expect(dev, 8);
  const uint64_t zeros = payload.expect(dev + 4, 4);
  payload.apply(zeros, "", 4);
  payload.apply(bytes, std::string("\x11\x11\x11\x11\x22\x22\x22\x22", 8));
  const std::vector<unsigned char> want{0x11, 0x11, 0x11, 0x11, 0, 0, 0, 0};
  EXPECT_EQ(read_back(dev, 8), want);
  const uint64_t z = payload.expect(dev, 8);
  const uint64_t b = payload.expect(dev + 6, 2);
  payload.apply(z, "", 8);
  payload.apply(b, std::string("\x33\x33", 2));
  const std::vector<unsigned char> want2{0, 0, 0, 0, 0, 0, 0x33, 0x33};
  EXPECT_EQ(read_back(dev, 8), want2);
}

}  // namespace
}  // namespace seer::client
