#include "seer/runtime/remote.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>

#include "proto/frame.h"
#include "remote_auth.h"

namespace seer::rt {

std::string Endpoint::text() const {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

Endpoint parse_endpoint(const std::string& text) {
  Endpoint e;
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos) {
    throw RemoteError("'" + text + "' is not HOST:PORT (e.g. node0:29600 or 10.0.0.1:29600)");
  }
  e.host = text.substr(0, colon);
  if (e.host.size() >= 2 && e.host.front() == '[' && e.host.back() == ']') {
    e.host = e.host.substr(1, e.host.size() - 2);
  }
  const std::string port = text.substr(colon + 1);
  char* end = nullptr;
  const long p = std::strtol(port.c_str(), &end, 10);
  if (port.empty() || *end != 0 || p < 1 || p > 65535) {
    throw RemoteError("'" + text + "': the port must be a number from 1 to 65535");
  }
  e.port = static_cast<int>(p);
  return e;
}

std::string load_token(const std::string& path, bool create, bool* created) {
  if (created) *created = false;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (!create || errno != ENOENT) {
      throw RemoteError("token file " + path + ": " + std::strerror(errno));
    }
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) throw RemoteError("cannot create token file " + path + ": " + std::strerror(errno));
    static const char kHex[] = "0123456789abcdef";
    std::string token;
    for (unsigned char b : random_bytes(32)) {
      token += kHex[b >> 4];
      token += kHex[b & 15];
    }
    const std::string line = token + "\n";
    const bool ok = wire::write_all(fd, line.data(), line.size());
    ::close(fd);
    if (!ok) throw RemoteError("cannot write token file " + path);
    if (created) *created = true;
    return token;
  }
  if (!S_ISREG(st.st_mode)) throw RemoteError("token file " + path + " is not a regular file");
  if (st.st_size > 4096) throw RemoteError("token file " + path + " is larger than 4 KiB");
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  if (!in) throw RemoteError("cannot read token file " + path);
  std::string token = s.str();
  const auto first = token.find_first_not_of(" \t\r\n");
  const auto last = token.find_last_not_of(" \t\r\n");
  token = first == std::string::npos ? "" : token.substr(first, last - first + 1);
  if (token.size() < 16) {
    throw RemoteError("token file " + path + " holds " + std::to_string(token.size()) +
                      " characters; a token needs at least 16 (seer serve creates a random one "
                      "when the file does not exist)");
  }
  return token;
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds_left(Clock::time_point deadline) {
  return std::chrono::duration<double>(deadline - Clock::now()).count();
}

// Reads one frame within the deadline.
std::string read_frame(int fd, Clock::time_point deadline, const std::string& where) {
  wire::FrameReader reader;
  while (true) {
    bool corrupt = false;
    if (auto f = reader.next(corrupt)) return *f;
    if (corrupt) throw RemoteError(where + " is not a Seer session (it sent something else)");
    const double left = seconds_left(deadline);
    pollfd p{fd, POLLIN, 0};
    if (left <= 0 || ::poll(&p, 1, static_cast<int>(left * 1000) + 1) == 0) {
      throw RemoteError(where + " did not answer in time");
    }
    char buf[4096];
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw RemoteError(where + " closed the connection during authentication");
    reader.append(buf, static_cast<size_t>(n));
  }
}

}  // namespace

int connect_to_session(const Endpoint& at, const std::string& token, double timeout_s) {
  const std::string where = "the session at " + at.text();
  const auto deadline =
      Clock::now() + std::chrono::milliseconds(static_cast<int>(timeout_s * 1000));
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  const std::string port = std::to_string(at.port);
  if (const int rc = ::getaddrinfo(at.host.c_str(), port.c_str(), &hints, &list); rc != 0) {
    throw RemoteError("cannot resolve '" + at.host + "': " + gai_strerror(rc));
  }
  int fd = -1;
  std::string last_error = "no address";
  for (addrinfo* a = list; a && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    if (::connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      last_error = std::strerror(errno);
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(list);
  if (fd < 0) throw RemoteError("cannot connect to " + where + ": " + last_error);
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  try {
    wire::RemoteChallenge challenge;
    if (!challenge.ParseFromString(read_frame(fd, deadline, where)) ||
        challenge.protocol() != kRemoteProtocol || challenge.nonce().size() != kNonceBytes) {
      throw RemoteError(where + " is not a Seer session of this version (expected protocol " +
                        kRemoteProtocol + ")");
    }
    wire::RemoteResponse response;
    response.set_nonce(random_bytes(kNonceBytes));
    response.set_mac(host_mac(token, challenge.nonce(), response.nonce()));
    const std::string out = frame_of(response);
    if (!wire::write_all(fd, out.data(), out.size())) {
      throw RemoteError(where + " closed the connection during authentication");
    }
    wire::RemoteVerdict verdict;
    if (!verdict.ParseFromString(read_frame(fd, deadline, where))) {
      throw RemoteError(where + " sent a malformed answer to the authentication");
    }
    if (!verdict.accepted()) throw RemoteError(where + " refused this host: " + verdict.error());
    if (!same_mac(verdict.mac(), session_mac(token, challenge.nonce(), response.nonce()))) {
      throw RemoteError(where + " does not hold this token (another session?); not joining it");
    }
  } catch (...) {
    ::close(fd);
    throw;
  }
  return fd;
}

}  // namespace seer::rt
