// The session's TCP side: hosts whose `seer run --connect` relays their ranks here. A connection
// authenticates first (remote_auth.h); its first message then makes it a rank process (a Hello:
// an ordinary Client from there on) or a host's control connection (HostHello).

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "session_server.h"

namespace seer::rt {
namespace {

std::string peer_name(const sockaddr_storage& addr, socklen_t size) {
  char host[NI_MAXHOST] = "?";
  char port[NI_MAXSERV] = "?";
  ::getnameinfo(reinterpret_cast<const sockaddr*>(&addr), size, host, sizeof host, port,
                sizeof port, NI_NUMERICHOST | NI_NUMERICSERV);
  return std::string(host) + ":" + port;
}

// Authentication messages are a few dozen bytes: the socket's buffer takes them whole.
void send_small(int fd, const std::string& bytes) {
  ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

}  // namespace

void SessionServer::listen_tcp(const Endpoint& at) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* list = nullptr;
  const std::string port = std::to_string(at.port);
  const bool any = at.host.empty() || at.host == "*";
  if (const int rc = ::getaddrinfo(any ? nullptr : at.host.c_str(), port.c_str(), &hints, &list);
      rc != 0) {
    throw RemoteError("cannot listen on " + at.text() + ": " + gai_strerror(rc));
  }
  std::string error = "no address";
  for (addrinfo* a = list; a && tcp_fd_ < 0; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) continue;
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 1024) == 0) {
      tcp_fd_ = fd;
      sockaddr_storage bound{};
      socklen_t size = sizeof bound;
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &size);
      listen_address_ = peer_name(bound, size);
    } else {
      error = std::strerror(errno);
      ::close(fd);
    }
  }
  ::freeaddrinfo(list);
  if (tcp_fd_ < 0) throw RemoteError("cannot listen on " + at.text() + ": " + error);
}

void SessionServer::accept_remote() {
  while (true) {
    sockaddr_storage addr{};
    socklen_t size = sizeof addr;
    const int fd =
        ::accept4(tcp_fd_, reinterpret_cast<sockaddr*>(&addr), &size, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) return;
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    auto p = std::make_unique<PendingRemote>();
    p->fd = fd;
    p->peer = peer_name(addr, size);
    p->connected = std::chrono::steady_clock::now();
    send_small(fd, frame_of(p->gate.challenge()));
    pending_.push_back(std::move(p));
  }
}

// A refused connection never becomes a client: nothing of the run changes.
void SessionServer::refuse(PendingRemote& p, const std::string& why) {
  std::fprintf(stderr, "seer: refused a connection from %s: %s\n", p.peer.c_str(), why.c_str());
  ::close(p.fd);
  p.fd = -1;
}

void SessionServer::drop_unauthenticated() {
  const auto now = std::chrono::steady_clock::now();
  for (auto& p : pending_) {
    if (p->fd < 0) continue;
    if (std::chrono::duration<double>(now - p->connected).count() < options_.hello_timeout_s) {
      continue;
    }
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g", options_.hello_timeout_s);
    refuse(*p, p->authenticated
                   ? std::string("authenticated but said nothing within ") + limit + " s"
                   : std::string("did not authenticate within ") + limit + " s");
  }
  std::erase_if(pending_, [](const auto& p) { return p->fd < 0; });
}

void SessionServer::read_pending(PendingRemote& p) {
  char buf[65536];
  bool eof = false;
  while (true) {
    const ssize_t n = ::read(p.fd, buf, sizeof buf);
    if (n > 0) {
      p.reader.append(buf, static_cast<size_t>(n));
      if (p.reader.pending() > (1u << 20) && !p.authenticated) break;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    eof = true;
    break;
  }
  bool corrupt = false;
  while (p.fd >= 0) {
    auto frame = p.reader.next(corrupt);
    if (!frame) break;
    if (!p.authenticated) {
      wire::RemoteVerdict verdict;
      std::string why;
      const bool ok = p.gate.check(*frame, options_.token, verdict, why);
      send_small(p.fd, frame_of(verdict));
      if (!ok) {
        refuse(p, why);
        return;
      }
      p.authenticated = true;
      continue;
    }
    admit(p, *frame);
    return;
  }
  if (p.fd < 0) return;
  if (corrupt) {
    refuse(p, "sent something that is not Seer's wire protocol");
  } else if (eof) {
    ::close(p.fd);
    p.fd = -1;
  }
}

// The first message after authentication says what the connection is.
void SessionServer::admit(PendingRemote& p, const std::string& first_message) {
  wire::ClientMessage m;
  if (!m.ParseFromString(first_message) || (!m.has_hello() && !m.has_host_hello())) {
    refuse(p, "its first message is neither a rank's hello nor a host's");
    return;
  }
  if (m.has_host_hello()) {
    auto h = std::make_unique<RemoteHost>();
    h->fd = p.fd;
    h->info.peer = p.peer;
    h->info.hostname = m.host_hello().hostname();
    h->info.command.assign(m.host_hello().command().begin(), m.host_hello().command().end());
    h->pid = m.host_hello().pid();
    h->reader = std::move(p.reader);
    p.fd = -1;
    std::string command;
    for (const std::string& a : m.host_hello().command())
      command += (command.empty() ? "" : " ") + a;
    std::fprintf(stderr, "seer: host %s (%s) joined: %s\n", h->info.hostname.c_str(),
                 h->info.peer.c_str(), command.c_str());
    hosts_.push_back(std::move(h));
    read_host(*hosts_.back());
    return;
  }
  auto c = std::make_unique<Client>();
  c->fd = p.fd;
  c->remote = true;
  c->reader = std::move(p.reader);
  c->index = static_cast<int>(clients_.size());
  c->connected = std::chrono::steady_clock::now();
  p.fd = -1;
  clients_.push_back(std::move(c));
  Client& client = *clients_.back();
  handle_message(client, first_message);
  read_client(client);
}

void SessionServer::read_host(RemoteHost& h) {
  char buf[4096];
  bool eof = false;
  while (true) {
    const ssize_t n = ::read(h.fd, buf, sizeof buf);
    if (n > 0) {
      h.reader.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    eof = true;
    break;
  }
  bool corrupt = false;
  while (!h.gone) {
    auto frame = h.reader.next(corrupt);
    if (!frame) break;
    handle_host_message(h, *frame);
  }
  if (h.gone) return;
  if (corrupt) {
    host_lost(h, "sent a malformed frame on its control connection");
  } else if (eof) {
    if (h.info.done) {
      ::close(h.fd);
      h.fd = -1;
      h.gone = true;
    } else {
      host_lost(h,
                "lost its connection before its command ended (its seer was killed or the "
                "network failed)");
    }
  }
}

void SessionServer::handle_host_message(RemoteHost& h, const std::string& payload) {
  wire::ClientMessage m;
  if (!m.ParseFromString(payload) || !m.has_host_done()) {
    host_lost(h, "sent a message a host does not send");
    return;
  }
  h.info.done = true;
  h.info.exit_code = m.host_done().exit_code();
  h.info.exit_description = m.host_done().description();
  std::fprintf(stderr, "seer: host %s: the command %s\n", h.info.hostname.c_str(),
               h.info.exit_description.c_str());
  if (h.info.exit_code != 0) {
    problems_.push_back("host " + h.info.hostname + ": the command " + h.info.exit_description);
  }
}

void SessionServer::host_lost(RemoteHost& h, const std::string& why) {
  if (h.fd >= 0) ::close(h.fd);
  h.fd = -1;
  h.gone = true;
  if (!aborted_) abort_run("host " + h.info.hostname + " (" + h.info.peer + ") " + why);
}

bool SessionServer::remote_hosts_finished() const {
  if (hosts_.empty()) return false;
  for (const auto& h : hosts_) {
    if (!h->gone && !h->info.done) return false;
  }
  return live_clients() == 0;
}

}  // namespace seer::rt
