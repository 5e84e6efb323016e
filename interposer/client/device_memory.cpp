#include "device_memory.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace seer::client {
namespace {

struct sigaction g_previous_segv;
struct sigaction g_previous_bus;

// Async-signal-safe enough: only snprintf into a stack buffer and write(2).
void say(const char* text) { (void)!::write(2, text, std::strlen(text)); }

void on_fault(int sig, siginfo_t* info, void* context) {
  const auto address = reinterpret_cast<uint64_t>(info->si_addr);
  const DeviceMemory& dm = DeviceMemory::instance();
  const int gpu = dm.gpu_of(address);
  if (gpu >= 0) {
    char line[256];
    std::snprintf(line, sizeof line,
                  "\nseer: host code dereferenced simulated device pointer 0x%llx (GPU %d). "
                  "Device memory has no contents under Seer; copy it to the host with "
                  "cudaMemcpy instead.\nseer: at:\n",
                  static_cast<unsigned long long>(address), gpu);
    say(line);
    // The faulting instruction first, then its callers.
    const auto* uc = static_cast<const ucontext_t*>(context);
    void* frames[16];
    frames[0] = reinterpret_cast<void*>(uc->uc_mcontext.gregs[REG_RIP]);
    const int n = 1 + backtrace(frames + 1, 15);
    for (int i = 0; i < n; ++i) {
      Dl_info info{};
      if (dladdr(frames[i], &info) && info.dli_fname) {
        const auto base = reinterpret_cast<uintptr_t>(info.dli_fbase);
        std::snprintf(line, sizeof line, "seer:   #%d %p %s+0x%llx (%s)\n", i, frames[i],
                      info.dli_sname ? info.dli_sname : "?",
                      static_cast<unsigned long long>(
                          reinterpret_cast<uintptr_t>(frames[i]) -
                          (info.dli_saddr ? reinterpret_cast<uintptr_t>(info.dli_saddr) : base)),
                      info.dli_fname);
      } else {
        std::snprintf(line, sizeof line, "seer:   #%d %p\n", i, frames[i]);
      }
      say(line);
    }
    say("seer: (names of static functions: addr2line -f -C -e <file> <offset>)\n");
    signal(SIGSEGV, SIG_DFL);
    raise(SIGSEGV);
    return;
  }
  const struct sigaction& prev = sig == SIGBUS ? g_previous_bus : g_previous_segv;
  if (prev.sa_flags & SA_SIGINFO) {
    if (prev.sa_sigaction) {
      prev.sa_sigaction(sig, info, context);
      return;
    }
  } else if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN) {
    prev.sa_handler(sig);
    return;
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

uint64_t round_up(uint64_t v, uint64_t g) { return (v + g - 1) / g * g; }

}  // namespace

DeviceMemory& DeviceMemory::instance() {
  static DeviceMemory* dm = new DeviceMemory();
  return *dm;
}

void DeviceMemory::configure(const wire::Welcome& welcome) {
  std::lock_guard<std::mutex> lock(mu_);
  gpus_.resize(static_cast<size_t>(welcome.gpus_size()));
  for (int i = 0; i < welcome.gpus_size(); ++i) {
    gpus_[i].total = static_cast<uint64_t>(welcome.gpus(i).memory_bytes());
    gpus_[i].reserve = static_cast<uint64_t>(welcome.gpus(i).context_reserve_bytes());
  }
  install_fault_handler();
}

void DeviceMemory::install_fault_handler() {
  struct sigaction sa {};
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &g_previous_segv);
  sigaction(SIGBUS, &sa, &g_previous_bus);
}

// Each GPU's address range is this many times its memory, so VMM reservations (PyTorch's
// expandable segments reserve 1.125x the GPU's memory per stream) fit beside plain allocations.
constexpr uint64_t kAddressSpaceFactor = 8;

bool DeviceMemory::reserve_locked(Gpu& g) {
  if (g.base) return true;
  const uint64_t span = round_up(g.total, uint64_t{1} << 30) * kAddressSpaceFactor;
  if (!span) return false;
  // Over-reserve to align the base to the VMM granularity, then trim both ends.
  const uint64_t length = span + kVmmGranularity;
  void* p = ::mmap(nullptr, length, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return false;
  const auto raw = reinterpret_cast<uint64_t>(p);
  const uint64_t base = round_up(raw, kVmmGranularity);
  if (base > raw) ::munmap(p, base - raw);
  if (raw + length > base + span)
    ::munmap(reinterpret_cast<void*>(base + span), raw + length - (base + span));
  void* shadow = ::mmap(nullptr, span, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (shadow != MAP_FAILED) {
    // Small writes must cost small pages, and a core dump must not hold the whole range.
    ::madvise(shadow, span, MADV_NOHUGEPAGE);
    ::madvise(shadow, span, MADV_DONTDUMP);
    g.shadow = reinterpret_cast<uint64_t>(shadow);
  }
  g.span = span;
  g.base = base;
  g.free_ranges[0] = span;
  return true;
}

// First fit of `size` bytes at an `alignment`-aligned address; returns the offset or UINT64_MAX.
uint64_t DeviceMemory::take_range_locked(Gpu& g, uint64_t size, uint64_t alignment) {
  for (auto it = g.free_ranges.begin(); it != g.free_ranges.end(); ++it) {
    const uint64_t start = it->first;
    const uint64_t end = start + it->second;
    const uint64_t offset = round_up(g.base + start, alignment) - g.base;
    if (offset + size > end) continue;
    g.free_ranges.erase(it);
    if (offset > start) g.free_ranges[start] = offset - start;
    if (end > offset + size) g.free_ranges[offset + size] = end - (offset + size);
    return offset;
  }
  return UINT64_MAX;
}

void DeviceMemory::give_range_locked(Gpu& g, uint64_t offset, uint64_t length) {
  auto next = g.free_ranges.lower_bound(offset);
  if (next != g.free_ranges.end() && next->first == offset + length) {
    length += next->second;
    next = g.free_ranges.erase(next);
  }
  if (next != g.free_ranges.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == offset) {
      offset = prev->first;
      length += prev->second;
      g.free_ranges.erase(prev);
    }
  }
  g.free_ranges[offset] = length;
}

DeviceMemory::AllocResult DeviceMemory::allocate(int gpu, uint64_t bytes, uint64_t& address) {
  std::lock_guard<std::mutex> lock(mu_);
  if (gpu < 0 || static_cast<size_t>(gpu) >= gpus_.size()) return AllocResult::kInvalid;
  Gpu& g = gpus_[gpu];
  const uint64_t size = round_up(bytes, kGranularity);
  if (g.used + size > g.total - g.reserve) return AllocResult::kOutOfMemory;
  if (!reserve_locked(g)) return AllocResult::kOutOfMemory;
  const uint64_t offset = take_range_locked(g, size, kGranularity);
  if (offset == UINT64_MAX) return AllocResult::kOutOfMemory;
  address = g.base + offset;
  g.live[address] = size;
  g.used += size;
  return AllocResult::kOk;
}

std::optional<DeviceMemory::Allocation> DeviceMemory::release(uint64_t address) {
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < gpus_.size(); ++i) {
    Gpu& g = gpus_[i];
    auto it = g.live.find(address);
    if (it == g.live.end()) continue;
    const uint64_t size = it->second;
    g.live.erase(it);
    g.used -= size;
    discard_locked(g, address, size, false);
    give_range_locked(g, address - g.base, size);
    return Allocation{static_cast<int>(i), address, size};
  }
  return std::nullopt;
}

std::optional<DeviceMemory::Allocation> DeviceMemory::find(uint64_t address) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < gpus_.size(); ++i) {
    const Gpu& g = gpus_[i];
    if (!g.base || address < g.base || address >= g.base + g.span) continue;
    auto it = g.live.upper_bound(address);
    if (it != g.live.begin()) {
      --it;
      if (address < it->first + it->second)
        return Allocation{static_cast<int>(i), it->first, it->second};
    }
    // A VMM mapping: the whole run of adjacent mappings around it counts as one allocation,
    // since a tensor may span several physical chunks mapped side by side.
    auto m = g.mapped.upper_bound(address);
    if (m == g.mapped.begin()) return std::nullopt;
    --m;
    if (address >= m->first + m->second.size) return std::nullopt;
    uint64_t begin = m->first;
    uint64_t end = m->first + m->second.size;
    for (auto back = m; back != g.mapped.begin();) {
      --back;
      if (back->first + back->second.size != begin) break;
      begin = back->first;
    }
    for (auto fwd = std::next(m); fwd != g.mapped.end() && fwd->first == end; ++fwd)
      end += fwd->second.size;
    return Allocation{static_cast<int>(i), begin, end - begin};
  }
  return std::nullopt;
}

int DeviceMemory::gpu_of(uint64_t address) const {
  // Called from the fault handler: no locking; the ranges only ever grow.
  for (size_t i = 0; i < gpus_.size(); ++i) {
    const Gpu& g = gpus_[i];
    if (g.base && address >= g.base && address < g.base + g.span) return static_cast<int>(i);
  }
  return -1;
}

uint64_t DeviceMemory::used(int gpu) const {
  std::lock_guard<std::mutex> lock(mu_);
  return gpus_.at(gpu).used;
}

uint64_t DeviceMemory::capacity(int gpu) const {
  std::lock_guard<std::mutex> lock(mu_);
  return gpus_.at(gpu).total - gpus_.at(gpu).reserve;
}

uint64_t DeviceMemory::total(int gpu) const {
  std::lock_guard<std::mutex> lock(mu_);
  return gpus_.at(gpu).total;
}

void DeviceMemory::add_pinned(uint64_t base, uint64_t size) {
  std::lock_guard<std::mutex> lock(mu_);
  pinned_[base] = size;
}

bool DeviceMemory::remove_pinned(uint64_t base) {
  std::lock_guard<std::mutex> lock(mu_);
  return pinned_.erase(base) > 0;
}

bool DeviceMemory::is_pinned(uint64_t address) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pinned_.upper_bound(address);
  if (it == pinned_.begin()) return false;
  --it;
  return address < it->first + it->second;
}

}  // namespace seer::client

// The virtual-memory API.
namespace seer::client {

DeviceMemory::AllocResult DeviceMemory::reserve_address(int gpu, uint64_t size, uint64_t alignment,
                                                        uint64_t& address) {
  std::lock_guard<std::mutex> lock(mu_);
  if (gpu < 0 || static_cast<size_t>(gpu) >= gpus_.size() || size == 0)
    return AllocResult::kInvalid;
  if (alignment & (alignment - 1)) return AllocResult::kInvalid;
  Gpu& g = gpus_[gpu];
  if (!reserve_locked(g)) return AllocResult::kOutOfMemory;
  size = round_up(size, kVmmGranularity);
  const uint64_t offset = take_range_locked(g, size, std::max(alignment, kVmmGranularity));
  if (offset == UINT64_MAX) return AllocResult::kOutOfMemory;
  address = g.base + offset;
  g.reserved[address] = size;
  return AllocResult::kOk;
}

bool DeviceMemory::free_address(uint64_t address, uint64_t size) {
  std::lock_guard<std::mutex> lock(mu_);
  for (Gpu& g : gpus_) {
    auto it = g.reserved.find(address);
    if (it == g.reserved.end()) continue;
    if (round_up(size, kVmmGranularity) != it->second) return false;
    // Every mapping inside must have been unmapped first.
    auto m = g.mapped.lower_bound(address);
    if (m != g.mapped.end() && m->first < address + it->second) return false;
    give_range_locked(g, address - g.base, it->second);
    g.reserved.erase(it);
    return true;
  }
  return false;
}

DeviceMemory::AllocResult DeviceMemory::create_physical(int gpu, uint64_t size, uint64_t& handle) {
  std::lock_guard<std::mutex> lock(mu_);
  if (gpu < 0 || static_cast<size_t>(gpu) >= gpus_.size()) return AllocResult::kInvalid;
  if (size == 0 || size % kVmmGranularity) return AllocResult::kInvalid;
  Gpu& g = gpus_[gpu];
  if (g.used + size > g.total - g.reserve) return AllocResult::kOutOfMemory;
  g.used += size;
  handle = next_handle_++;
  physicals_[handle] = PhysicalState{gpu, size};
  return AllocResult::kOk;
}

bool DeviceMemory::release_physical(uint64_t handle) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = physicals_.find(handle);
  if (it == physicals_.end() || it->second.released) return false;
  if (it->second.mappings > 0) {
    it->second.released = true;  // CUDA frees it when the last mapping goes
    return true;
  }
  gpus_[it->second.gpu].used -= it->second.size;
  physicals_.erase(it);
  return true;
}

std::optional<DeviceMemory::Physical> DeviceMemory::physical(uint64_t handle) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = physicals_.find(handle);
  if (it == physicals_.end() || it->second.released) return std::nullopt;
  return Physical{it->second.gpu, it->second.size};
}

bool DeviceMemory::map(uint64_t address, uint64_t size, uint64_t offset, uint64_t handle) {
  std::lock_guard<std::mutex> lock(mu_);
  auto ph = physicals_.find(handle);
  if (ph == physicals_.end() || ph->second.released || size == 0) return false;
  if (address % kVmmGranularity || size % kVmmGranularity || offset % kVmmGranularity) return false;
  if (offset + size > ph->second.size) return false;
  for (Gpu& g : gpus_) {
    if (!g.base || address < g.base || address >= g.base + g.span) continue;
    // Inside one reservation, overlapping no mapping.
    auto r = g.reserved.upper_bound(address);
    if (r == g.reserved.begin()) return false;
    --r;
    if (address + size > r->first + r->second) return false;
    auto next = g.mapped.lower_bound(address);
    if (next != g.mapped.end() && next->first < address + size) return false;
    if (next != g.mapped.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second.size > address) return false;
    }
    g.mapped[address] = Gpu::Mapping{size, handle};
    ++ph->second.mappings;
    return true;
  }
  return false;
}

bool DeviceMemory::unmap(uint64_t address, uint64_t size) {
  std::lock_guard<std::mutex> lock(mu_);
  for (Gpu& g : gpus_) {
    if (!g.base || address < g.base || address >= g.base + g.span) continue;
    // The range must consist of whole mappings.
    const uint64_t end = address + size;
    auto first = g.mapped.lower_bound(address);
    if (first == g.mapped.end() || first->first != address) return false;
    auto last = first;
    uint64_t at = address;
    while (last != g.mapped.end() && last->first == at && at < end) {
      at += last->second.size;
      ++last;
    }
    if (at != end) return false;
    for (auto it = first; it != last;) {
      auto ph = physicals_.find(it->second.handle);
      if (ph != physicals_.end() && --ph->second.mappings == 0 && ph->second.released) {
        g.used -= ph->second.size;
        physicals_.erase(ph);
      }
      discard_locked(g, it->first, it->second.size, false);
      it = g.mapped.erase(it);
    }
    return true;
  }
  return false;
}

const DeviceMemory::Gpu* DeviceMemory::gpu_containing_locked(uint64_t address,
                                                             uint64_t bytes) const {
  for (const Gpu& g : gpus_) {
    if (g.base && address >= g.base && address < g.base + g.span)
      return bytes <= g.base + g.span - address ? &g : nullptr;
  }
  return nullptr;
}

void* DeviceMemory::shadow(uint64_t address, uint64_t bytes) const {
  std::lock_guard<std::mutex> lock(mu_);
  const Gpu* g = gpu_containing_locked(address, bytes);
  if (!g || !g->shadow) return nullptr;
  return reinterpret_cast<void*>(g->shadow + (address - g->base));
}

void DeviceMemory::discard(uint64_t address, uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  if (const Gpu* g = gpu_containing_locked(address, bytes))
    discard_locked(*g, address, bytes, true);
}

void DeviceMemory::discard_locked(const Gpu& g, uint64_t address, uint64_t bytes, bool zero_edges) {
  if (!g.shadow || !bytes) return;
  const uint64_t begin = g.shadow + (address - g.base);
  const uint64_t end = begin + bytes;
  static const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t inner_begin = round_up(begin, page);
  const uint64_t inner_end = end / page * page;
  if (inner_begin >= inner_end) {
    if (zero_edges) std::memset(reinterpret_cast<void*>(begin), 0, bytes);
    return;
  }
  ::madvise(reinterpret_cast<void*>(inner_begin), inner_end - inner_begin, MADV_DONTNEED);
  if (!zero_edges) return;
  std::memset(reinterpret_cast<void*>(begin), 0, inner_begin - begin);
  std::memset(reinterpret_cast<void*>(inner_end), 0, end - inner_end);
}

}  // namespace seer::client
