#include "relay.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "proto/frame.h"
#include "wire.pb.h"

namespace seer::cli {
namespace {

std::string framed(const google::protobuf::MessageLite& m) {
  const std::string body = m.SerializeAsString();
  std::string out;
  wire::append_frame_header(out, static_cast<uint32_t>(body.size()));
  return out + body;
}

std::string this_hostname() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return name;
}

}  // namespace

// One rank connection: bytes read from one side wait in `to_*` until the other side takes them.
struct Relay::Pair {
  int local = -1;
  int remote = -1;
  std::string to_remote;
  std::string to_local;
  bool local_eof = false;
  bool remote_eof = false;

  bool done() const { return (local_eof && to_remote.empty()) || (remote_eof && to_local.empty()); }
};

Relay::Relay(rt::Endpoint session, std::string token, const std::vector<std::string>& command)
    : session_(std::move(session)), token_(std::move(token)) {
  control_ = rt::connect_to_session(session_, token_, 10);
  wire::ClientMessage m;
  wire::HostHello* h = m.mutable_host_hello();
  h->set_hostname(this_hostname());
  h->set_pid(static_cast<int32_t>(::getpid()));
  for (const std::string& a : command) h->add_command(a);
  const std::string out = framed(m);
  if (!wire::write_all(control_, out.data(), out.size())) {
    throw rt::RemoteError("the session at " + session_.text() + " closed the connection");
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/seer-XXXXXX";
  if (!mkdtemp(templ.data())) {
    throw std::runtime_error("cannot create a private directory: " +
                             std::string(std::strerror(errno)));
  }
  dir_ = templ;
  socket_path_ = dir_ + "/session.sock";
  listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (socket_path_.size() >= sizeof(addr.sun_path)) {
    throw std::runtime_error("socket path too long: " + socket_path_);
  }
  std::strcpy(addr.sun_path, socket_path_.c_str());
  if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listen_fd_, 1024) != 0) {
    throw std::runtime_error("cannot listen on " + socket_path_ + ": " + std::strerror(errno));
  }
}

Relay::~Relay() {
  for (auto& p : pairs_) {
    if (p->local >= 0) ::close(p->local);
    if (p->remote >= 0) ::close(p->remote);
  }
  if (control_ >= 0) ::close(control_);
  if (listen_fd_ >= 0) ::close(listen_fd_);
  ::unlink(socket_path_.c_str());
  ::rmdir(dir_.c_str());
}

void Relay::accept_local() {
  while (true) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) return;
    auto p = std::make_unique<Pair>();
    p->local = fd;
    try {
      p->remote = rt::connect_to_session(session_, token_, 10);
    } catch (const rt::RemoteError& e) {
      // The rank sees its connection close and reports that it could not reach the session.
      std::fprintf(stderr, "seer: a rank could not join: %s\n", e.what());
      ::close(fd);
      continue;
    }
    ::fcntl(p->remote, F_SETFL, O_NONBLOCK);
    pairs_.push_back(std::move(p));
  }
}

void Relay::read_control(const std::function<void(const std::string&)>& on_stop) {
  char buf[4096];
  const ssize_t n = ::read(control_, buf, sizeof buf);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n <= 0) {
    ::close(control_);
    control_ = -1;
    if (!stopped_) {
      stopped_ = true;
      on_stop("the session at " + session_.text() + " closed this host's connection");
    }
    return;
  }
  control_buffer_.append(buf, static_cast<size_t>(n));
  wire::FrameReader reader;
  reader.append(control_buffer_.data(), control_buffer_.size());
  bool corrupt = false;
  while (auto frame = reader.next(corrupt)) {
    wire::SessionMessage m;
    if (m.ParseFromString(*frame) && m.has_fatal() && !stopped_) {
      stopped_ = true;
      on_stop(m.fatal().message());
    }
  }
  control_buffer_.erase(0, control_buffer_.size() - reader.pending());
}

namespace {

// Moves what `from` has into `buffer`, and what `buffer` holds into `to`. False at end of file.
bool pump_in(int from, std::string& buffer) {
  char buf[65536];
  while (true) {
    const ssize_t n = ::read(from, buf, sizeof buf);
    if (n > 0) {
      buffer.append(buf, static_cast<size_t>(n));
      if (buffer.size() > (8u << 20)) return true;  // let the other side drain first
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }
}

bool pump_out(int to, std::string& buffer) {
  while (!buffer.empty()) {
    const ssize_t n = ::send(to, buffer.data(), buffer.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      buffer.erase(0, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }
  return true;
}

}  // namespace

void Relay::serve(const std::function<bool()>& keep_going,
                  const std::function<void(const std::string&)>& on_stop) {
  std::vector<pollfd> fds;
  while (true) {
    const bool more = keep_going();
    if (!more && pairs_.empty()) return;
    fds.clear();
    fds.push_back({listen_fd_, POLLIN, 0});
    fds.push_back({control_, POLLIN, 0});
    for (auto& p : pairs_) {
      fds.push_back(
          {p->local, static_cast<short>(POLLIN | (p->to_local.empty() ? 0 : POLLOUT)), 0});
      fds.push_back(
          {p->remote, static_cast<short>(POLLIN | (p->to_remote.empty() ? 0 : POLLOUT)), 0});
    }
    if (::poll(fds.data(), fds.size(), 20) < 0 && errno != EINTR) {
      throw std::runtime_error("poll failed");
    }
    if (fds[0].revents & POLLIN) accept_local();
    if (control_ >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) read_control(on_stop);
    for (size_t i = 0; i < pairs_.size() && 2 + 2 * i + 1 < fds.size(); ++i) {
      Pair& p = *pairs_[i];
      const short lr = fds[2 + 2 * i].revents;
      const short rr = fds[2 + 2 * i + 1].revents;
      if (lr & (POLLIN | POLLHUP | POLLERR))
        p.local_eof = !pump_in(p.local, p.to_remote) || p.local_eof;
      if (rr & (POLLIN | POLLHUP | POLLERR))
        p.remote_eof = !pump_in(p.remote, p.to_local) || p.remote_eof;
      if (!pump_out(p.remote, p.to_remote)) p.remote_eof = true, p.to_remote.clear();
      if (!pump_out(p.local, p.to_local)) p.local_eof = true, p.to_local.clear();
    }
    std::erase_if(pairs_, [](const std::unique_ptr<Pair>& p) {
      if (!p->done()) return false;
      ::close(p->local);
      ::close(p->remote);
      return true;
    });
  }
}

void Relay::finish(int exit_code, const std::string& description) {
  if (control_ < 0) return;
  wire::ClientMessage m;
  m.mutable_host_done()->set_exit_code(exit_code);
  m.mutable_host_done()->set_description(description);
  const std::string out = framed(m);
  wire::write_all(control_, out.data(), out.size());
  ::shutdown(control_, SHUT_WR);
  // Wait (briefly) for the session to close its side, so the HostDone is read before the close.
  pollfd p{control_, POLLIN, 0};
  char buf[256];
  for (int i = 0; i < 50 && ::poll(&p, 1, 100) >= 0; ++i) {
    if (p.revents && ::read(control_, buf, sizeof buf) <= 0) break;
  }
  ::close(control_);
  control_ = -1;
}

}  // namespace seer::cli
