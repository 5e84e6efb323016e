// Inputs found by the fuzz targets of tests/fuzz in the session (fuzz_session: client byte
// streams written by a raw Unix-socket connection to an in-process Session, which serves them to
// their end) and in the unit parsers of cluster files (fuzz_units).
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>

#include "proto/frame.h"
#include "seer/runtime/cluster.h"
#include "seer/runtime/session.h"
#include "seer/runtime/units.h"
#include "wire.pb.h"

namespace seer::rt {
namespace {

std::string framed(const wire::ClientMessage& m) {
  const std::string body = m.SerializeAsString();
  std::string out;
  wire::append_frame_header(out, static_cast<uint32_t>(body.size()));
  return out + body;
}

std::string hello() {
  wire::ClientMessage m;
  m.mutable_hello()->set_pid(4242);
  m.mutable_hello()->set_rank(-1);
  return framed(m);
}

// A raw connection to the session's socket.
int connect_to(const Session& session) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, session.socket_path().c_str(), sizeof addr.sun_path - 1);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  return fd;
}

// Serves one client that sends `bytes` and then closes its side.
SessionResult serve_stream(const std::string& bytes) {
  SessionOptions o;
  o.cluster = load_cluster("test-fabric");
  o.host_time = HostTime::kModeled;
  Session session(o);
  const int fd = connect_to(session);
  EXPECT_TRUE(wire::write_all(fd, bytes.data(), bytes.size()));
  ::shutdown(fd, SHUT_WR);
  int turns = 0;
  session.serve([&] { return ++turns < 3; });
  ::close(fd);
  return session.result();
}

// An NVTX record whose kind is none of the protocol's was stored as an out-of-range enum value
// (UBSan: "load of value 18, which is not a valid value for type NvtxEvent::Kind").
TEST(SessionFuzzRegressions, NvtxRecordOfUnknownKindIsIgnored) {
  wire::ClientMessage m;
  wire::Record* bad = m.mutable_batch()->add_records();
  bad->mutable_nvtx()->set_kind(static_cast<wire::Nvtx::Kind>(18));
  bad->mutable_nvtx()->set_message("bad");
  wire::Record* good = m.mutable_batch()->add_records();
  good->mutable_nvtx()->set_kind(wire::Nvtx::MARK);
  good->mutable_nvtx()->set_message("good");
  wire::ClientMessage bye;
  bye.mutable_batch()->mutable_request()->set_goodbye(true);
  bye.mutable_batch()->set_all_blocked(true);
  const SessionResult r = serve_stream(hello() + framed(m) + framed(bye));
  ASSERT_EQ(r.nvtx.size(), 1u);
  EXPECT_EQ(r.nvtx[0].message, "good");
  EXPECT_EQ(r.nvtx[0].kind, NvtxEvent::kMark);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0],
            "process 4242 sent a record naming an unknown stream, GPU or kind (ignored)");
}

// Each ignored record added a line of its own: a program whose launches all went to a stream the
// session never heard of buried the report's problems under thousands of identical lines.
TEST(SessionFuzzRegressions, IgnoredRecordsOfOneProcessAreCountedOnOneLine) {
  wire::ClientMessage m;
  for (int i = 0; i < 3; ++i) {
    wire::Copy* copy = m.mutable_batch()->add_records()->mutable_copy();
    copy->set_stream(77);
    copy->set_kind(wire::COPY_H2D);
    copy->set_bytes(4096);
  }
  wire::ClientMessage bye;
  bye.mutable_batch()->mutable_request()->set_goodbye(true);
  bye.mutable_batch()->set_all_blocked(true);
  const SessionResult r = serve_stream(hello() + framed(m) + framed(bye));
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0],
            "process 4242 sent 3 records naming an unknown stream, GPU or kind (ignored)");
}

// A communicator whose member names a GPU the cluster does not have threw std::out_of_range out of
// Engine::add_comm and ended the session.
TEST(SessionFuzzRegressions, CommunicatorOnAGpuTheClusterLacksDropsTheClient) {
  for (int gpu : {999, -1}) {
    wire::ClientMessage m;
    wire::Request* r = m.mutable_batch()->mutable_request();
    r->set_id(1);
    wire::CommInit* init = r->mutable_comm_init()->add_inits();
    init->set_unique_id("id");
    init->set_nranks(1);
    init->set_rank(0);
    init->set_gpu(gpu);
    const SessionResult result = serve_stream(hello() + framed(m));
    ASSERT_EQ(result.problems.size(), 1u) << gpu;
    EXPECT_EQ(result.problems[0], "dropped the connection of process 4242: named GPU " +
                                      std::to_string(gpu) +
                                      " in a communicator; the cluster has 4");
  }
}

// A connection that never says hello held virtual time back (its promise counts as 0) until it
// closed: it is dropped after SessionOptions::hello_timeout_s.
TEST(SessionRogueClients, SilentConnectionIsDroppedAfterTheHelloTimeout) {
  SessionOptions o;
  o.cluster = load_cluster("test-fabric");
  o.host_time = HostTime::kModeled;
  o.hello_timeout_s = 0.2;
  Session session(o);
  const int fd = connect_to(session);
  const auto start = std::chrono::steady_clock::now();
  session.serve([&] {
    return session.result().problems.empty() &&
           std::chrono::steady_clock::now() - start < std::chrono::seconds(5);
  });
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ::close(fd);
  const SessionResult r = session.result();
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].rfind("dropped the connection of process ", 0), 0u) << r.problems[0];
  EXPECT_NE(r.problems[0].find(": connected but sent no hello within 0.2 s"), std::string::npos)
      << r.problems[0];
  EXPECT_GE(waited, 0.2);
  EXPECT_LT(waited, 4.0);
}

// A bandwidth whose value times its unit overflows a double was accepted as infinity.
TEST(UnitsFuzzRegressions, BandwidthThatOverflowsIsAnError) {
  for (const char* text : {"1e300TB/s", "1e308Tbps", "1.7e308GiB/s"}) {
    try {
      parse_bandwidth("node.scale_up.bandwidth", text);
      ADD_FAILURE() << text << " was accepted";
    } catch (const ClusterError& e) {
      EXPECT_EQ(e.what(), "node.scale_up.bandwidth: '" + std::string(text) + "' is too large");
    }
  }
  EXPECT_EQ(parse_bandwidth("bw", "1e300B/s"), 1e300);
  EXPECT_THROW(parse_bytes("size", "1e300TiB"), ClusterError);
  EXPECT_THROW(parse_duration_ns("latency", "1e308s"), ClusterError);
}

}  // namespace
}  // namespace seer::rt
