#include "payload.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core.h"
#include "device_memory.h"

namespace seer::client {
namespace {

constexpr uint64_t kDefaultMaxBytes = uint64_t{1} << 20;

uint64_t env_max_bytes() {
  static const uint64_t value = [] {
    const char* v = std::getenv("SEER_PAYLOAD_MAX_BYTES");
    if (!v || !*v) return kDefaultMaxBytes;
    char* end = nullptr;
    const long long n = std::strtoll(v, &end, 10);
    return end != v && n >= 0 ? static_cast<uint64_t>(n) : kDefaultMaxBytes;
  }();
  return value;
}

bool on_device(const void* p) {
  return DeviceMemory::instance().gpu_of(reinterpret_cast<uint64_t>(p)) >= 0;
}

bool overlaps(uint64_t a, uint64_t an, uint64_t b, uint64_t bn) { return a < b + bn && b < a + an; }

template <typename T>
void fill_pattern(void* dst, T value, uint64_t count) {
  auto* p = static_cast<unsigned char*>(dst);
  for (uint64_t i = 0; i < count; ++i) std::memcpy(p + i * sizeof(T), &value, sizeof(T));
}

bool all_zero(const void* p, uint64_t n) {
  const auto* b = static_cast<const unsigned char*>(p);
  uint64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    uint64_t w[8];
    std::memcpy(w, b + i, sizeof w);
    if ((w[0] | w[1] | w[2] | w[3] | w[4] | w[5] | w[6] | w[7]) != 0) return false;
  }
  for (; i < n; ++i) {
    if (b[i]) return false;
  }
  return true;
}

// Zeros [p, p+n) writing only the pages that hold something else: the shadow's untouched pages
// read as zeros and cost no RAM as long as nothing writes them.
void write_zeros(void* p, uint64_t n) {
  constexpr uint64_t kPage = 4096;
  auto* at = static_cast<unsigned char*>(p);
  unsigned char* const end = at + n;
  while (at < end) {
    const auto next_page = (reinterpret_cast<uintptr_t>(at) | (kPage - 1)) + 1;
    const uint64_t len = std::min<uint64_t>(static_cast<uint64_t>(end - at),
                                            next_page - reinterpret_cast<uintptr_t>(at));
    if (!all_zero(at, len)) std::memset(at, 0, len);
    at += len;
  }
}

}  // namespace

Payload& Payload::instance() {
  static Payload* p = new Payload();
  return *p;
}

uint64_t Payload::max_bytes() const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (max_bytes_override_ >= 0) return static_cast<uint64_t>(max_bytes_override_);
  }
  Core& core = Core::instance();
  if (core.joined()) return static_cast<uint64_t>(core.welcome().payload_max_bytes());
  return env_max_bytes();
}

void Payload::set_max_bytes(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  max_bytes_override_ = static_cast<int64_t>(bytes);
}

void* Payload::resolve(const void* address, uint64_t bytes) {
  if (!on_device(address)) return const_cast<void*>(address);
  return DeviceMemory::instance().shadow(reinterpret_cast<uint64_t>(address), bytes);
}

void Payload::copy(void* dst, const void* src, uint64_t bytes, wire::CopyKind kind) {
  if (bytes == 0) return;
  if (kind == wire::COPY_H2H) {
    std::memmove(dst, src, bytes);
    return;
  }
  const bool src_device = on_device(src);
  const bool dst_device = on_device(dst);
  if (src_device) settle(src, bytes);
  if (dst_device) settle(dst, bytes);
  void* to = resolve(dst, bytes);
  const void* from = resolve(src, bytes);
  if (!to) return;
  if (!dst_device) {
    // Whatever its size, the host gets the shadow's bytes: deterministic, zeros if never written.
    if (from) {
      std::memmove(to, from, bytes);
    } else {
      std::memset(to, 0, bytes);
    }
    return;
  }
  if (bytes > max_bytes()) {
    DeviceMemory::instance().discard(reinterpret_cast<uint64_t>(dst), bytes);
  } else if (from) {
    std::memmove(to, from, bytes);
  } else {
    std::memset(to, 0, bytes);
  }
}

void Payload::fill(void* dst, uint32_t value, uint32_t elem_bytes, uint64_t count) {
  const uint64_t bytes = count * elem_bytes;
  if (bytes == 0 || !on_device(dst)) return;
  settle(dst, bytes);
  void* to = resolve(dst, bytes);
  if (!to) return;
  if (bytes > max_bytes()) {
    DeviceMemory::instance().discard(reinterpret_cast<uint64_t>(dst), bytes);
    return;
  }
  switch (elem_bytes) {
    case 1:
      std::memset(to, static_cast<int>(value & 0xff), count);
      break;
    case 2:
      fill_pattern(to, static_cast<uint16_t>(value), count);
      break;
    case 4:
      fill_pattern(to, value, count);
      break;
    default:
      break;
  }
}

std::string Payload::read(const void* src, uint64_t bytes) {
  std::string out(bytes, '\0');
  if (bytes == 0) return out;
  const auto address = reinterpret_cast<uint64_t>(src);
  if (on_device(src)) {
    settle(src, bytes);
    if (const void* from = DeviceMemory::instance().shadow(address, bytes))
      std::memcpy(out.data(), from, bytes);
  } else if (DeviceMemory::instance().is_pinned(address)) {
    std::memcpy(out.data(), src, bytes);
  }
  return out;
}

std::string Payload::input(const void* src, uint64_t bytes) {
  if (bytes == 0) return {};
  const auto address = reinterpret_cast<uint64_t>(src);
  const void* from = nullptr;
  if (on_device(src)) {
    settle(src, bytes);
    from = DeviceMemory::instance().shadow(address, bytes);
  } else if (DeviceMemory::instance().is_pinned(address)) {
    from = src;
  }
  if (!from || all_zero(from, bytes)) return {};
  return std::string(static_cast<const char*>(from), bytes);
}

uint64_t Payload::expect(void* dst, uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t id = next_id_++;
  pending_.push_back(Pending{id, reinterpret_cast<uint64_t>(dst), bytes, false, {}, 0});
  return id;
}

void Payload::apply(uint64_t id, const std::string& bytes, uint64_t zeros) {
  std::lock_guard<std::mutex> lock(mu_);
  for (Pending& p : pending_) {
    if (p.id != id) continue;
    p.arrived = true;
    p.data = bytes;
    p.zeros = zeros;
  }
  apply_arrived_locked();
}

void Payload::take_locked(Pending& p, wire::Answer& a) {
  p.data = std::move(*a.mutable_payload());
  p.zeros = a.payload_zeros();
}

size_t Payload::pending() const {
  std::lock_guard<std::mutex> lock(mu_);
  return pending_.size();
}

void Payload::write_locked(const Pending& p) {
  const uint64_t n = std::min<uint64_t>(p.bytes, p.zeros ? p.zeros : p.data.size());
  if (n == 0) return;
  void* to = resolve(reinterpret_cast<void*>(p.dst), n);
  if (!to) return;
  if (p.zeros) {
    write_zeros(to, n);
  } else {
    std::memcpy(to, p.data.data(), n);
  }
}

// Results are written strictly in program order, so a later result (or write) to the same bytes
// always wins.
void Payload::apply_arrived_locked() {
  Core& core = Core::instance();
  while (!pending_.empty()) {
    Pending& p = pending_.front();
    if (!p.arrived && core.joined()) {
      wire::Answer a;
      if (core.take_answer(p.id, a)) {
        p.arrived = true;
        take_locked(p, a);
      }
    }
    if (!p.arrived) return;
    write_locked(p);
    pending_.pop_front();
  }
}

void Payload::settle(const void* address, uint64_t bytes) {
  const auto begin = reinterpret_cast<uint64_t>(address);
  while (true) {
    wire::Request r;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (pending_.empty()) return;
      apply_arrived_locked();
      size_t last = pending_.size();
      for (size_t i = 0; i < pending_.size(); ++i) {
        if (overlaps(begin, bytes, pending_[i].dst, pending_[i].bytes)) last = i;
      }
      if (last == pending_.size()) return;
      Core& core = Core::instance();
      if (!core.joined()) {
        // Nobody can send these results (tests without a session): they never arrive.
        for (size_t i = 0; i <= last; ++i) pending_[i].arrived = true;
        apply_arrived_locked();
        return;
      }
      for (size_t i = 0; i <= last; ++i) {
        if (!pending_[i].arrived) r.mutable_payload_wait()->add_result_ids(pending_[i].id);
      }
    }
    Core& core = Core::instance();
    core.request(core.thread(), r);
    // The session sends results before answering the wait; one that still has not arrived was
    // never going to (its collective was refused): drop it rather than wait forever.
    std::lock_guard<std::mutex> lock(mu_);
    for (Pending& p : pending_) {
      if (p.arrived) continue;
      for (uint64_t id : r.payload_wait().result_ids()) {
        if (p.id != id) continue;
        wire::Answer a;
        if (core.take_answer(id, a)) take_locked(p, a);
        p.arrived = true;
      }
    }
    apply_arrived_locked();
  }
}

}  // namespace seer::client
