#pragma once

// Ranks on other hosts joining a session over TCP (`seer serve --listen`, `seer run --connect`):
// addresses, the session token, and the authenticated connection a host opens.

#include <stdexcept>
#include <string>

namespace seer::rt {

class RemoteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Endpoint {
  std::string host;  // name or address; "" or "*" listens on every address
  int port = 0;
  std::string text() const;
};

// "HOST:PORT", "[IPv6]:PORT" or ":PORT"; throws RemoteError naming what is wrong.
Endpoint parse_endpoint(const std::string& text);

// The session token in `path` (surrounding whitespace ignored, at least 16 characters). With
// `create`, a missing file is created first holding 32 random bytes in hex, readable by its owner
// only, and `created` says so. Throws RemoteError.
std::string load_token(const std::string& path, bool create, bool* created = nullptr);

// Connects to the session at `at` and authenticates both ways with `token` (which never crosses
// the network). Returns the connected socket, blocking. Throws RemoteError with the reason (no
// such host, refused, wrong token, not a Seer session, timeout).
int connect_to_session(const Endpoint& at, const std::string& token, double timeout_s);

}  // namespace seer::rt
