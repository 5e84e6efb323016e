#include "report_unsupported.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>

#include "stack_trace.h"

namespace {

constexpr int kMaxFrames = 8;

// Open-addressing set of the 64-bit hashes of the messages already printed. More slots than
// there are exported functions in all replaced libraries together (~1,500).
constexpr size_t kSlots = 4096;
std::atomic<uint64_t> g_reported[kSlots];

enum class Kind : uint64_t { kUnsupported = 1, kNotice = 2 };

uint64_t HashKey(Kind kind, const char* lib, const char* name) {
  uint64_t hash = 14695981039346656037ull ^ static_cast<uint64_t>(kind);  // FNV-1a
  auto mix = [&hash](const char* text) {
    for (const char* c = text; *c != '\0'; ++c) {
      hash = (hash ^ static_cast<uint8_t>(*c)) * 1099511628211ull;
    }
    hash = (hash ^ 0xff) * 1099511628211ull;  // separator: ("ab", "c") differs from ("a", "bc")
  };
  mix(lib);
  mix(name);
  return hash != 0 ? hash : 1;  // 0 marks an empty slot
}

// True for exactly one caller per key, lock-free.
bool FirstTime(uint64_t key) {
  for (size_t i = 0; i < kSlots; ++i) {
    std::atomic<uint64_t>& slot = g_reported[(key + i) % kSlots];
    uint64_t seen = slot.load(std::memory_order_relaxed);
    if (seen == 0 && slot.compare_exchange_strong(seen, key, std::memory_order_relaxed)) {
      return true;
    }
    if (seen == key) return false;
  }
  return true;  // table full: repeat messages rather than lose new ones
}

// One write(2) per message so that reports from several threads do not interleave.
void WriteToStderr(const char* text, size_t length) {
  while (length > 0) {
    ssize_t n = write(STDERR_FILENO, text, length);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    text += n;
    length -= static_cast<size_t>(n);
  }
}

constexpr size_t kMessageSize = 4096;

// `message` holds a header of `header_length` characters (snprintf's result).
void WriteWithStack(char* message, int header_length, void* caller) {
  size_t length = std::min(static_cast<size_t>(std::max(header_length, 0)), kMessageSize - 1);
  length += seer::FormatCallerStack(message + length, kMessageSize - length, caller, kMaxFrames);
  WriteToStderr(message, length);
}

}  // namespace

extern "C" void seer_report_unsupported(const char* lib, const char* fn, const char* result,
                                        void* caller) {
  if (!FirstTime(HashKey(Kind::kUnsupported, lib, fn))) return;
  char message[kMessageSize];
  int n = snprintf(message, sizeof message,
                   "seer: %s is not implemented by Seer's %s replacement; returning %s\n", fn, lib,
                   result);
  WriteWithStack(message, n, caller);
}

extern "C" void seer_report_once(const char* lib, const char* what) {
  if (!FirstTime(HashKey(Kind::kNotice, lib, what))) return;
  char message[kMessageSize];
  int n = snprintf(message, sizeof message, "seer: %s: %s\n", lib, what);
  WriteWithStack(message, n, __builtin_return_address(0));
}
