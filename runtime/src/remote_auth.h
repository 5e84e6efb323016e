#pragma once

// The challenge-response both ends of a TCP connection to a session run (wire.proto
// RemoteChallenge / RemoteResponse / RemoteVerdict): each side proves it holds the token with an
// HMAC-SHA256 over both sides' fresh nonces, so the token is never sent and a recorded exchange
// cannot be replayed.

#include <string>

#include "wire.pb.h"

namespace seer::rt {

inline constexpr const char* kRemoteProtocol = "seer-remote-1";
inline constexpr size_t kNonceBytes = 32;

std::string random_bytes(size_t n);
std::string hmac_sha256(const std::string& key, const std::string& data);
bool same_mac(const std::string& a, const std::string& b);  // constant time

std::string host_mac(const std::string& token, const std::string& challenge_nonce,
                     const std::string& host_nonce);
std::string session_mac(const std::string& token, const std::string& challenge_nonce,
                        const std::string& host_nonce);

// The session's side for one connection: the challenge it sent, then the verdict on the answer.
class RemoteGate {
 public:
  wire::RemoteChallenge challenge();
  // Checks a RemoteResponse payload; `verdict` is what to send back either way, `why` the
  // reason for a refusal.
  bool check(const std::string& payload, const std::string& token, wire::RemoteVerdict& verdict,
             std::string& why) const;

 private:
  std::string nonce_;
};

// A framed protobuf message, ready to write.
std::string frame_of(const google::protobuf::MessageLite& m);

}  // namespace seer::rt
