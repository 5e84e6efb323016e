// Length-prefixed frame codec of the wire protocol (runtime/proto/frame.h).

#include "proto/frame.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace seer::wire {
namespace {

std::string Frame(const std::string& payload) {
  std::string out;
  append_frame_header(out, static_cast<uint32_t>(payload.size()));
  return out + payload;
}

// Every complete frame currently in the reader.
std::vector<std::string> Drain(FrameReader& r, bool* corrupt_out = nullptr) {
  std::vector<std::string> out;
  bool corrupt = false;
  while (auto f = r.next(corrupt)) out.push_back(*f);
  if (corrupt_out) *corrupt_out = corrupt;
  return out;
}

TEST(Frame, HeaderIsFourBytesLittleEndian) {
  std::string out = "x";
  append_frame_header(out, 0x01020304u);
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out, std::string("x\x04\x03\x02\x01", 5));
  out.clear();
  append_frame_header(out, 0xfffffffeu);
  EXPECT_EQ(out, std::string("\xfe\xff\xff\xff", 4));
  out.clear();
  append_frame_header(out, 0);
  EXPECT_EQ(out, std::string(4, '\0'));
}

TEST(Frame, ConcatenatedFrames) {
  const std::string bytes =
      Frame("hello") + Frame("") + Frame(std::string("a\0b", 3)) + Frame("world");
  FrameReader r;
  r.append(bytes.data(), bytes.size());
  bool corrupt = true;
  EXPECT_EQ(Drain(r, &corrupt),
            (std::vector<std::string>{"hello", "", std::string("a\0b", 3), "world"}));
  EXPECT_FALSE(corrupt);
  EXPECT_FALSE(r.next(corrupt));
  EXPECT_FALSE(corrupt);
}

TEST(Frame, SplitAtEveryByte) {
  const std::string bytes = Frame("first") + Frame("second payload") + Frame("");
  for (size_t cut = 0; cut <= bytes.size(); ++cut) {
    SCOPED_TRACE(cut);
    FrameReader r;
    r.append(bytes.data(), cut);
    std::vector<std::string> got = Drain(r);
    r.append(bytes.data() + cut, bytes.size() - cut);
    for (auto& f : Drain(r)) got.push_back(f);
    EXPECT_EQ(got, (std::vector<std::string>{"first", "second payload", ""}));
  }
}

TEST(Frame, ByteAtATime) {
  const std::string bytes = Frame("abc") + Frame("defgh");
  FrameReader r;
  std::vector<std::string> got;
  bool corrupt = false;
  for (size_t i = 0; i < bytes.size(); ++i) {
    r.append(bytes.data() + i, 1);
    if (auto f = r.next(corrupt)) {
      got.push_back(*f);
      EXPECT_TRUE(i == 6 || i == bytes.size() - 1) << "frame completed early at byte " << i;
    }
    EXPECT_FALSE(corrupt);
  }
  EXPECT_EQ(got, (std::vector<std::string>{"abc", "defgh"}));
}

TEST(Frame, LargeFramesAcrossBufferCompaction) {
  // Two 700 KB frames and half of a third: after the second, the consumed prefix exceeds 1 MiB
  // and the reader compacts its buffer while a partial frame is pending.
  const std::string a(700000, 'a'), b(700000, 'b');
  std::string c(300000, 'c');
  c[0] = 'C';
  c.back() = 'Z';
  const std::string bytes = Frame(a) + Frame(b) + Frame(c);
  const size_t split = 2 * (4 + 700000) + 4 + 1000;
  FrameReader r;
  r.append(bytes.data(), split);
  std::vector<std::string> got = Drain(r);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], a);
  EXPECT_EQ(got[1], b);
  r.append(bytes.data() + split, bytes.size() - split);
  got = Drain(r);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], c);
  // And the reader keeps working afterwards.
  const std::string more = Frame("after");
  r.append(more.data(), more.size());
  EXPECT_EQ(Drain(r), std::vector<std::string>{"after"});
}

TEST(Frame, CorruptLength) {
  std::string bytes;
  append_frame_header(bytes, kMaxFrameBytes + 1);
  bytes += "xyz";
  FrameReader r;
  r.append(bytes.data(), bytes.size());
  bool corrupt = false;
  EXPECT_FALSE(r.next(corrupt));
  EXPECT_TRUE(corrupt);

  // A corrupt header after a good frame: the good one comes out first.
  const std::string good = Frame("ok") + std::string("\xff\xff\xff\xff", 4);
  FrameReader r2;
  r2.append(good.data(), good.size());
  auto f = r2.next(corrupt);
  ASSERT_TRUE(f);
  EXPECT_EQ(*f, "ok");
  EXPECT_FALSE(corrupt);
  EXPECT_FALSE(r2.next(corrupt));
  EXPECT_TRUE(corrupt);
}

TEST(Frame, MaximumLengthIsNotCorrupt) {
  std::string bytes;
  append_frame_header(bytes, kMaxFrameBytes);
  FrameReader r;
  r.append(bytes.data(), bytes.size());
  bool corrupt = true;
  EXPECT_FALSE(r.next(corrupt)) << "incomplete, not corrupt";
  EXPECT_FALSE(corrupt);
}

TEST(Frame, PartialHeaderIsIncomplete) {
  FrameReader r;
  bool corrupt = true;
  EXPECT_FALSE(r.next(corrupt));
  EXPECT_FALSE(corrupt);
  r.append("\x05\x00", 2);
  EXPECT_FALSE(r.next(corrupt));
  EXPECT_FALSE(corrupt);
}

TEST(Frame, WriteAllThroughAPipe) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const std::string bytes = Frame("through a pipe");
  ASSERT_TRUE(write_all(fds[1], bytes.data(), bytes.size()));
  ::close(fds[1]);
  FrameReader r;
  char buf[64];
  ssize_t n;
  while ((n = ::read(fds[0], buf, sizeof buf)) > 0) r.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  EXPECT_EQ(Drain(r), std::vector<std::string>{"through a pipe"});
  EXPECT_FALSE(write_all(-1, bytes.data(), bytes.size()));
  EXPECT_TRUE(write_all(-1, bytes.data(), 0)) << "nothing to write";
}

}  // namespace
}  // namespace seer::wire
