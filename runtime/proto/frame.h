#pragma once

// Length-prefixed framing for the wire protocol: a 4-byte little-endian length, then the message.
// Header-only so that the interposer (which may depend on runtime/proto only) can use it.

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace seer::wire {

inline constexpr uint32_t kMaxFrameBytes = 256u << 20;

inline void append_frame_header(std::string& out, uint32_t length) {
  const char header[4] = {static_cast<char>(length & 0xff), static_cast<char>((length >> 8) & 0xff),
                          static_cast<char>((length >> 16) & 0xff),
                          static_cast<char>((length >> 24) & 0xff)};
  out.append(header, 4);
}

// Writes all of `data`; false on error (peer gone).
inline bool write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// Incremental frame decoder over a byte buffer filled by non-blocking reads.
class FrameReader {
 public:
  void append(const char* data, size_t size) { buffer_.append(data, size); }

  // Bytes received that are not yet part of a complete frame (a peer that closes the connection
  // with some left stopped in the middle of a message).
  size_t pending() const { return buffer_.size() - offset_; }

  // Returns the next complete frame's payload, nullopt when incomplete. Sets `corrupt` when the
  // length header is impossible (the caller drops the connection).
  std::optional<std::string> next(bool& corrupt) {
    std::optional<std::string_view> frame = peek(corrupt);
    if (!frame) return std::nullopt;
    std::string payload(*frame);
    pop();
    return payload;
  }

  // The next complete frame's payload without copying it, valid until pop() or append();
  // nullopt and `corrupt` as for next().
  std::optional<std::string_view> peek(bool& corrupt) {
    corrupt = false;
    if (buffer_.size() - offset_ < 4) return std::nullopt;
    const auto* p = reinterpret_cast<const unsigned char*>(buffer_.data() + offset_);
    const uint32_t length = p[0] | (p[1] << 8) | (p[2] << 16) | (uint32_t{p[3]} << 24);
    if (length > kMaxFrameBytes) {
      corrupt = true;
      return std::nullopt;
    }
    if (buffer_.size() - offset_ < 4 + size_t{length}) return std::nullopt;
    peeked_ = 4 + size_t{length};
    return std::string_view(buffer_.data() + offset_ + 4, length);
  }

  // Drops the frame peek() returned.
  void pop() {
    offset_ += peeked_;
    peeked_ = 0;
    if (offset_ == buffer_.size()) {
      buffer_.clear();
      offset_ = 0;
    } else if (offset_ > (1u << 20)) {
      buffer_.erase(0, offset_);
      offset_ = 0;
    }
  }

 private:
  std::string buffer_;
  size_t offset_ = 0;
  size_t peeked_ = 0;
};

}  // namespace seer::wire
