#include "remote_auth.h"

#include <openssl/crypto.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <stdexcept>

#include "proto/frame.h"

namespace seer::rt {

std::string random_bytes(size_t n) {
  std::string out(n, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1) {
    throw std::runtime_error("the system's random number generator failed");
  }
  return out;
}

std::string hmac_sha256(const std::string& key, const std::string& data) {
  unsigned char mac[32];
  unsigned int size = sizeof mac;
  if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
            reinterpret_cast<const unsigned char*>(data.data()), data.size(), mac, &size)) {
    throw std::runtime_error("HMAC-SHA256 failed");
  }
  return std::string(reinterpret_cast<const char*>(mac), size);
}

bool same_mac(const std::string& a, const std::string& b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string host_mac(const std::string& token, const std::string& challenge_nonce,
                     const std::string& host_nonce) {
  return hmac_sha256(token, "host|" + challenge_nonce + "|" + host_nonce);
}

std::string session_mac(const std::string& token, const std::string& challenge_nonce,
                        const std::string& host_nonce) {
  return hmac_sha256(token, "session|" + host_nonce + "|" + challenge_nonce);
}

wire::RemoteChallenge RemoteGate::challenge() {
  nonce_ = random_bytes(kNonceBytes);
  wire::RemoteChallenge c;
  c.set_protocol(kRemoteProtocol);
  c.set_nonce(nonce_);
  return c;
}

bool RemoteGate::check(const std::string& payload, const std::string& token,
                       wire::RemoteVerdict& verdict, std::string& why) const {
  verdict.Clear();
  wire::RemoteResponse r;
  if (!r.ParseFromString(payload) || r.nonce().size() != kNonceBytes || r.mac().size() != 32) {
    why = "its first message is not a Seer authentication (another program, or another version)";
  } else if (!same_mac(r.mac(), host_mac(token, nonce_, r.nonce()))) {
    why = "wrong token (it was started with another token file, or for another session)";
  } else {
    verdict.set_accepted(true);
    verdict.set_mac(session_mac(token, nonce_, r.nonce()));
    return true;
  }
  verdict.set_error(why);
  return false;
}

std::string frame_of(const google::protobuf::MessageLite& m) {
  const std::string body = m.SerializeAsString();
  std::string out;
  wire::append_frame_header(out, static_cast<uint32_t>(body.size()));
  out += body;
  return out;
}

}  // namespace seer::rt
