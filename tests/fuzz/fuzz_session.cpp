// Whole client byte streams through a real session: the input is split at "#SEER-CLIENT#" into
// up to four streams; each is written by its own Unix-socket connection to a fresh Session (as
// rank processes would), and the session serves them until every connection has been read to
// its end. This exercises framing, ClientMessage parsing and everything the session does with
// a decoded message (hello, records, requests, drops), then the reports built from the result.
// The only acceptable outcomes are a served or a dropped client; crashes, sanitizer reports and
// uncaught exceptions are findings.

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "seer/runtime/cluster.h"
#include "seer/runtime/report.h"
#include "seer/runtime/session.h"

namespace {

constexpr std::string_view kSeparator = "#SEER-CLIENT#";
constexpr size_t kMaxClients = 4;

struct Peer {
  int fd = -1;
  std::string bytes;
  size_t sent = 0;
  bool shut = false;
};

int connect_to(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) std::abort();
  return fd;
}

// Writes what the socket takes now; half-closes once everything is written.
bool pump(Peer& p) {
  while (!p.shut && p.sent < p.bytes.size()) {
    const ssize_t n =
        ::send(p.fd, p.bytes.data() + p.sent, p.bytes.size() - p.sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n <= 0) {
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) return false;
      p.shut = true;  // the session dropped this connection
      break;
    }
    p.sent += static_cast<size_t>(n);
  }
  if (!p.shut) {
    ::shutdown(p.fd, SHUT_WR);
    p.shut = true;
  }
  // Drain what the session wrote so that its outbox never stalls on a full socket.
  char buf[65536];
  while (::recv(p.fd, buf, sizeof buf, MSG_DONTWAIT) > 0) {
  }
  return true;
}

const seer::rt::SessionOptions& options() {
  static const seer::rt::SessionOptions o = [] {
    seer::rt::SessionOptions o;
    o.cluster = seer::rt::load_cluster("test-fabric:2");
    o.host_time = seer::rt::HostTime::kModeled;
    o.payload_max_bytes = 4096;
    return o;
  }();
  return o;
}

}  // namespace

// Sessions create their private directory under TMPDIR: memory is much faster than a disk.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (::access("/dev/shm", W_OK) == 0) ::setenv("TMPDIR", "/dev/shm", 0);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<Peer> peers;
  for (size_t at = 0; peers.size() < kMaxClients;) {
    const size_t end = input.find(kSeparator, at);
    peers.push_back(Peer{-1, std::string(input.substr(at, end - at)), 0, false});
    if (end == std::string_view::npos) break;
    at = end + kSeparator.size();
  }

  seer::rt::Session session(options());
  for (Peer& p : peers) p.fd = connect_to(session.socket_path());
  int turns = 0;
  session.serve([&] {
    bool all_written = true;
    for (Peer& p : peers) all_written = pump(p) && all_written;
    // The first turn accepts the connections; later turns read them.
    return ++turns < 3 || (!all_written && turns < 100000);
  });
  for (Peer& p : peers) ::close(p.fd);

  const seer::rt::SessionResult result = session.result();
  const seer::rt::RunDescription run{{"fuzz"}, 0, "exited with status 0"};
  (void)seer::rt::summary_json(session, result, run);
  (void)seer::rt::trace_json(session, result);
  return 0;
}
