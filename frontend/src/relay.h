#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "seer/runtime/remote.h"

namespace seer::cli {

// `seer run --connect`: the command's ranks connect to a Unix socket in a private directory, as
// under a local session; each connection is carried over its own authenticated TCP connection
// to the session (`seer serve`). A control connection announces this host and says when the
// command ended; the session tells it when it stops the run.
class Relay {
 public:
  // Authenticates the control connection first: a wrong token or an unreachable session throws
  // rt::RemoteError before the command starts.
  Relay(rt::Endpoint session, std::string token, const std::vector<std::string>& command);
  ~Relay();
  Relay(const Relay&) = delete;
  Relay& operator=(const Relay&) = delete;

  const std::string& socket_path() const { return socket_path_; }

  // Relays until keep_going() is false and every rank connection has closed, or the session
  // stops the run (then `on_stop` is called once with its message).
  void serve(const std::function<bool()>& keep_going,
             const std::function<void(const std::string&)>& on_stop);

  // Tells the session the command ended and closes the control connection.
  void finish(int exit_code, const std::string& description);

 private:
  struct Pair;
  void accept_local();
  void read_control(const std::function<void(const std::string&)>& on_stop);

  rt::Endpoint session_;
  std::string token_;
  int control_ = -1;
  std::string control_buffer_;
  bool stopped_ = false;
  std::string dir_;
  std::string socket_path_;
  int listen_fd_ = -1;
  std::vector<std::unique_ptr<Pair>> pairs_;
};

}  // namespace seer::cli
