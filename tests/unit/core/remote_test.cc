// The TCP side of a session (runtime/include/seer/runtime/remote.h, runtime/src/remote_auth.h,
// remote_hosts.cpp): addresses, token files, the challenge-response in both directions, and what
// the session does with hosts, rank connections and connections that fail to authenticate.
#include "seer/runtime/remote.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "proto/frame.h"
#include "remote_auth.h"
#include "seer/runtime/cluster.h"
#include "seer/runtime/session.h"
#include "wire.pb.h"

namespace seer::rt {
namespace {

constexpr const char* kToken = "0123456789abcdef-session-token";

std::string temp_path(const std::string& name) {
  const char* tmp = std::getenv("TMPDIR");
  return std::string(tmp && *tmp ? tmp : "/tmp") + "/seer-remote-test-" +
         std::to_string(::getpid()) + "-" + name;
}

std::string framed(const google::protobuf::MessageLite& m) { return frame_of(m); }

// One frame read from a blocking socket ("" when it closed first).
std::string read_frame(int fd) {
  wire::FrameReader reader;
  bool corrupt = false;
  char buf[4096];
  while (true) {
    if (auto f = reader.next(corrupt)) return *f;
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) return "";
    reader.append(buf, static_cast<size_t>(n));
  }
}

int raw_connect(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  return fd;
}

// A session listening on a free loopback port, served on its own thread until stop().
class ServedSession {
 public:
  explicit ServedSession(const std::string& cluster = "test-fabric") {
    SessionOptions o;
    o.cluster = load_cluster(cluster);
    o.host_time = HostTime::kModeled;
    o.listen = Endpoint{"127.0.0.1", 0};
    o.token = kToken;
    o.hello_timeout_s = 2;
    session_ = std::make_unique<Session>(o);
    const std::string a = session_->listen_address();
    port_ = std::atoi(a.substr(a.rfind(':') + 1).c_str());
    thread_ = std::thread([this] {
      session_->serve([this] { return !stop_ && !session_->remote_hosts_finished(); });
    });
  }
  ~ServedSession() { stop(); }
  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  // Waits (up to 5 s) for the session to end by itself: every host done and every rank gone.
  bool finishes() {
    for (int i = 0; i < 500 && !session_->remote_hosts_finished(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return session_->remote_hosts_finished();
  }
  int port() const { return port_; }
  Endpoint endpoint() const { return {"127.0.0.1", port_}; }
  SessionResult result() {
    stop();
    return session_->result();
  }

 private:
  std::unique_ptr<Session> session_;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

TEST(RemoteEndpoint, ParsesHostAndPortAndNamesWhatIsWrong) {
  EXPECT_EQ(parse_endpoint("node0:29600").host, "node0");
  EXPECT_EQ(parse_endpoint("node0:29600").port, 29600);
  EXPECT_EQ(parse_endpoint("[::1]:80").host, "::1");
  EXPECT_EQ(parse_endpoint("[::1]:80").text(), "[::1]:80");
  EXPECT_EQ(parse_endpoint(":5000").host, "");
  EXPECT_THROW(parse_endpoint("node0"), RemoteError);
  EXPECT_THROW(parse_endpoint("node0:"), RemoteError);
  EXPECT_THROW(parse_endpoint("node0:0"), RemoteError);
  EXPECT_THROW(parse_endpoint("node0:65536"), RemoteError);
  EXPECT_THROW(parse_endpoint("node0:12ab"), RemoteError);
  try {
    parse_endpoint("node0");
  } catch (const RemoteError& e) {
    EXPECT_NE(std::string(e.what()).find("HOST:PORT"), std::string::npos);
  }
}

TEST(RemoteToken, IsCreatedPrivateAndReadBack) {
  const std::string path = temp_path("token");
  ::unlink(path.c_str());
  bool created = false;
  const std::string token = load_token(path, true, &created);
  EXPECT_TRUE(created);
  EXPECT_EQ(token.size(), 64u);
  EXPECT_EQ(token.find_first_not_of("0123456789abcdef"), std::string::npos);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(load_token(path, false, &created), token);
  EXPECT_FALSE(created);
  ::unlink(path.c_str());
  EXPECT_THROW(load_token(path, false), RemoteError);
  std::ofstream(path) << "  short \n";
  try {
    load_token(path, false);
    ADD_FAILURE() << "a 5-character token was accepted";
  } catch (const RemoteError& e) {
    EXPECT_NE(std::string(e.what()).find("holds 5 characters"), std::string::npos) << e.what();
  }
  ::unlink(path.c_str());
}

TEST(RemoteAuth, MacsDependOnTokenDirectionAndBothNonces) {
  const std::string a(32, 'a'), b(32, 'b');
  EXPECT_EQ(hmac_sha256("key", "The quick brown fox jumps over the lazy dog").size(), 32u);
  EXPECT_TRUE(same_mac(host_mac(kToken, a, b), host_mac(kToken, a, b)));
  EXPECT_FALSE(same_mac(host_mac(kToken, a, b), host_mac("another token....", a, b)));
  EXPECT_FALSE(same_mac(host_mac(kToken, a, b), host_mac(kToken, b, a)));
  EXPECT_FALSE(same_mac(host_mac(kToken, a, b), session_mac(kToken, a, b)));
  EXPECT_FALSE(same_mac(host_mac(kToken, a, b), host_mac(kToken, a, b).substr(0, 31)));
  // HMAC-SHA256 test vector (RFC 4231 case 2).
  const std::string mac = hmac_sha256("Jefe", "what do ya want for nothing?");
  static const unsigned char kExpected[] = {0x5b, 0xdc, 0xc1, 0x46, 0xbf, 0x60, 0x75, 0x4e};
  EXPECT_EQ(mac.substr(0, 8), std::string(reinterpret_cast<const char*>(kExpected), 8));
}

TEST(RemoteSession, HostJoinsAndEndsTheSessionWhenItsCommandEnded) {
  ServedSession s;
  const int fd = connect_to_session(s.endpoint(), kToken, 5);
  wire::ClientMessage hello;
  hello.mutable_host_hello()->set_hostname("node7");
  hello.mutable_host_hello()->add_command("train.py");
  wire::ClientMessage done;
  done.mutable_host_done()->set_exit_code(3);
  done.mutable_host_done()->set_description("exited with status 3");
  const std::string bytes = framed(hello) + framed(done);
  ASSERT_TRUE(wire::write_all(fd, bytes.data(), bytes.size()));
  ::shutdown(fd, SHUT_WR);
  EXPECT_TRUE(s.finishes());
  ::close(fd);
  const SessionResult r = s.result();
  ASSERT_EQ(r.hosts.size(), 1u);
  EXPECT_EQ(r.hosts[0].hostname, "node7");
  EXPECT_EQ(r.hosts[0].command, std::vector<std::string>{"train.py"});
  EXPECT_TRUE(r.hosts[0].done);
  EXPECT_EQ(r.hosts[0].exit_code, 3);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0], "host node7: the command exited with status 3");
  EXPECT_FALSE(r.aborted);
}

TEST(RemoteSession, WrongTokenIsRefusedAndChangesNothing) {
  ServedSession s;
  try {
    ::close(connect_to_session(s.endpoint(), "not-the-session-token", 5));
    ADD_FAILURE() << "a wrong token was accepted";
  } catch (const RemoteError& e) {
    EXPECT_NE(std::string(e.what()).find("refused this host: wrong token"), std::string::npos)
        << e.what();
  }
  const SessionResult r = s.result();
  EXPECT_TRUE(r.hosts.empty());
  EXPECT_TRUE(r.processes.empty());
  EXPECT_TRUE(r.problems.empty());
  EXPECT_FALSE(r.aborted);
}

TEST(RemoteSession, ConnectionsThatDoNotAuthenticateAreRefused) {
  ServedSession s;
  // Not Seer at all: an HTTP request.
  const int http = raw_connect(s.port());
  const std::string get = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
  ASSERT_TRUE(wire::write_all(http, get.data(), get.size()));
  // A well-framed message that is not an authentication.
  const int garbage = raw_connect(s.port());
  const std::string junk = std::string("\x05\x00\x00\x00", 4) + "hello";
  ASSERT_TRUE(wire::write_all(garbage, junk.data(), junk.size()));
  // Authenticated, but its first message is a rank's batch, not a hello.
  const int early = connect_to_session(s.endpoint(), kToken, 5);
  wire::ClientMessage batch;
  batch.mutable_batch()->set_promise(5);
  const std::string b = framed(batch);
  ASSERT_TRUE(wire::write_all(early, b.data(), b.size()));
  // Silent: refused after the hello timeout (2 s here).
  const int silent = raw_connect(s.port());
  for (int fd : {http, garbage, early, silent}) {
    char buf[256];
    ssize_t n = 0;
    std::string all;
    while ((n = ::read(fd, buf, sizeof buf)) > 0) all.append(buf, static_cast<size_t>(n));
    EXPECT_EQ(n, 0) << "the session closes the connection";
    ::close(fd);
  }
  const SessionResult r = s.result();
  EXPECT_TRUE(r.processes.empty());
  EXPECT_TRUE(r.hosts.empty());
  EXPECT_TRUE(r.problems.empty());
}

TEST(RemoteSession, HostThatLeavesBeforeItsCommandEndedStopsTheRun) {
  ServedSession s;
  const int fd = connect_to_session(s.endpoint(), kToken, 5);
  wire::ClientMessage hello;
  hello.mutable_host_hello()->set_hostname("node3");
  const std::string bytes = framed(hello);
  ASSERT_TRUE(wire::write_all(fd, bytes.data(), bytes.size()));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ::close(fd);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const SessionResult r = s.result();
  EXPECT_TRUE(r.aborted);
  ASSERT_FALSE(r.problems.empty());
  EXPECT_NE(r.problems.back().find("host node3 (127.0.0.1:"), std::string::npos)
      << r.problems.back();
  EXPECT_NE(r.problems.back().find("lost its connection before its command ended"),
            std::string::npos);
}

// A rank on another host counts its devices from 0 again (LOCAL_RANK): its list is the whole
// cluster rotated so that device LOCAL_RANK is GPU RANK, as in a one-host run.
TEST(RemoteSession, RemoteRankSeesTheClusterRotatedToItsHostsFirstGpu) {
  ServedSession s("dgx-h100:2");
  const int fd = connect_to_session(s.endpoint(), kToken, 5);
  wire::ClientMessage hello;
  hello.mutable_hello()->set_pid(99);
  hello.mutable_hello()->set_rank(10);
  hello.mutable_hello()->set_world_size(16);
  hello.mutable_hello()->set_local_rank(2);
  const std::string bytes = framed(hello);
  ASSERT_TRUE(wire::write_all(fd, bytes.data(), bytes.size()));
  wire::SessionMessage m;
  ASSERT_TRUE(m.ParseFromString(read_frame(fd)));
  ASSERT_TRUE(m.has_welcome());
  const wire::Welcome& w = m.welcome();
  EXPECT_TRUE(w.error().empty()) << w.error();
  EXPECT_EQ(w.first_gpu(), 8);
  EXPECT_EQ(w.gpu_count(), 16);
  ASSERT_EQ(w.gpus_size(), 16);
  EXPECT_EQ(w.gpus(2).node(), 1);
  EXPECT_EQ(w.gpus(2).local_index(), 2);
  EXPECT_EQ(w.gpus(8).node(), 0);
  EXPECT_EQ(w.gpus(8).local_index(), 0);

  // A rank the cluster has no GPU for is refused with the reason.
  const int big = connect_to_session(s.endpoint(), kToken, 5);
  hello.mutable_hello()->set_rank(40);
  hello.mutable_hello()->set_local_rank(0);
  const std::string big_hello = framed(hello);
  ASSERT_TRUE(wire::write_all(big, big_hello.data(), big_hello.size()));
  ASSERT_TRUE(m.ParseFromString(read_frame(big)));
  EXPECT_NE(m.welcome().error().find("has 16 GPUs"), std::string::npos) << m.welcome().error();
  ::close(big);
  ::close(fd);
}

// A server that does not hold the token cannot make the host join it.
TEST(RemoteAuth, HostRefusesASessionThatCannotProveItHoldsTheToken) {
  const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(listener, 1), 0);
  socklen_t size = sizeof addr;
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &size);
  std::thread impostor([listener] {
    const int fd = ::accept(listener, nullptr, nullptr);
    RemoteGate gate;
    const std::string c = frame_of(gate.challenge());
    wire::write_all(fd, c.data(), c.size());
    read_frame(fd);
    wire::RemoteVerdict v;
    v.set_accepted(true);
    v.set_mac(std::string(32, 'x'));
    const std::string out = frame_of(v);
    wire::write_all(fd, out.data(), out.size());
    ::close(fd);
  });
  try {
    ::close(connect_to_session({"127.0.0.1", ntohs(addr.sin_port)}, kToken, 5));
    ADD_FAILURE() << "joined a session that does not hold the token";
  } catch (const RemoteError& e) {
    EXPECT_NE(std::string(e.what()).find("does not hold this token"), std::string::npos)
        << e.what();
  }
  impostor.join();
  ::close(listener);
}

}  // namespace
}  // namespace seer::rt
