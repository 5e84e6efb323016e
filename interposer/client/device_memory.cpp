#include "device_memory.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

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

bool DeviceMemory::reserve_locked(Gpu& g) {
  if (g.base) return true;
  g.span = round_up(g.total, uint64_t{1} << 30);
  void* p = ::mmap(nullptr, g.span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return false;
  g.base = reinterpret_cast<uint64_t>(p);
  g.free_ranges[0] = g.span;
  return true;
}

DeviceMemory::AllocResult DeviceMemory::allocate(int gpu, uint64_t bytes, uint64_t& address) {
  std::lock_guard<std::mutex> lock(mu_);
  if (gpu < 0 || static_cast<size_t>(gpu) >= gpus_.size()) return AllocResult::kInvalid;
  Gpu& g = gpus_[gpu];
  const uint64_t size = round_up(bytes, kGranularity);
  if (g.used + size > g.total - g.reserve) return AllocResult::kOutOfMemory;
  if (!reserve_locked(g)) return AllocResult::kOutOfMemory;
  for (auto it = g.free_ranges.begin(); it != g.free_ranges.end(); ++it) {
    if (it->second < size) continue;
    const uint64_t offset = it->first;
    const uint64_t remaining = it->second - size;
    g.free_ranges.erase(it);
    if (remaining) g.free_ranges[offset + size] = remaining;
    address = g.base + offset;
    g.live[address] = size;
    g.used += size;
    return AllocResult::kOk;
  }
  return AllocResult::kOutOfMemory;
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
    uint64_t offset = address - g.base;
    uint64_t length = size;
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
    if (it == g.live.begin()) return std::nullopt;
    --it;
    if (address < it->first + it->second)
      return Allocation{static_cast<int>(i), it->first, it->second};
    return std::nullopt;
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

// Virtual-memory API: not implemented yet (being built); every call fails cleanly.
namespace seer::client {
DeviceMemory::AllocResult DeviceMemory::reserve_address(int, uint64_t, uint64_t, uint64_t&) {
  return AllocResult::kInvalid;
}
bool DeviceMemory::free_address(uint64_t, uint64_t) { return false; }
DeviceMemory::AllocResult DeviceMemory::create_physical(int, uint64_t, uint64_t&) {
  return AllocResult::kInvalid;
}
bool DeviceMemory::release_physical(uint64_t) { return false; }
std::optional<DeviceMemory::Physical> DeviceMemory::physical(uint64_t) const {
  return std::nullopt;
}
bool DeviceMemory::map(uint64_t, uint64_t, uint64_t, uint64_t) { return false; }
bool DeviceMemory::unmap(uint64_t, uint64_t) { return false; }
}  // namespace seer::client
