// The wire protocol's frame decoder (runtime/proto/frame.h) against a plain reference decoder:
// the input is a byte stream delivered in chunks whose sizes the first bytes choose, as a
// non-blocking socket would deliver it. Every frame must come out whole and in order, and a
// length above kMaxFrameBytes must be reported as corrupt.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "proto/frame.h"

namespace {

struct Reference {
  std::vector<std::string> frames;
  bool corrupt = false;
};

Reference decode_whole(const std::string& bytes) {
  Reference r;
  size_t at = 0;
  while (bytes.size() - at >= 4) {
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data() + at);
    const uint32_t length =
        uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
    if (length > seer::wire::kMaxFrameBytes) {
      r.corrupt = true;
      break;
    }
    if (bytes.size() - at - 4 < length) break;
    r.frames.push_back(bytes.substr(at + 4, length));
    at += 4 + length;
  }
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  // Chunk sizes cycle through 1 + data[0] % 64 and 1 + data[1] % 4096.
  const size_t chunk_a = 1 + data[0] % 64;
  const size_t chunk_b = 1 + data[1] % 4096;
  const std::string stream(reinterpret_cast<const char*>(data) + 2, size - 2);

  seer::wire::FrameReader reader;
  std::vector<std::string> frames;
  bool corrupt = false;
  size_t at = 0;
  for (int turn = 0; at < stream.size() && !corrupt; ++turn) {
    const size_t n = std::min(stream.size() - at, turn % 2 ? chunk_b : chunk_a);
    reader.append(stream.data() + at, n);
    at += n;
    while (auto f = reader.next(corrupt)) frames.push_back(std::move(*f));
  }

  const Reference expected = decode_whole(stream);
  if (frames != expected.frames || corrupt != expected.corrupt) std::abort();

  // Frames re-encoded with append_frame_header decode to the same frames.
  std::string encoded;
  for (const std::string& f : frames) {
    seer::wire::append_frame_header(encoded, static_cast<uint32_t>(f.size()));
    encoded += f;
  }
  if (decode_whole(encoded).frames != frames) std::abort();
  return 0;
}
