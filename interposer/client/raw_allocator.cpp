#include "raw_allocator.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

namespace seer::client {
namespace {

constexpr size_t kGrain = 16;
constexpr size_t kClasses = 32;  // blocks of 16 .. 512 bytes; larger ones are mapped alone
constexpr size_t kChunk = size_t{1} << 20;

struct FreeBlock {
  FreeBlock* next;
};

// Constant-initialized, so usable from the first wrapped call, before any constructor runs.
struct Arena {
  std::atomic_flag busy = ATOMIC_FLAG_INIT;
  FreeBlock* free[kClasses] = {};
  char* chunk = nullptr;  // carved from the front
  size_t chunk_left = 0;
};
constinit Arena g_arena;

void* map(size_t bytes) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return p;
}

size_t page_rounded(size_t bytes) {
  const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page * page;
}

class ArenaLock {
 public:
  ArenaLock() {
    // The system call, not the interposed sched_yield.
    for (int spins = 0; g_arena.busy.test_and_set(std::memory_order_acquire); ++spins) {
      if (spins >= 64) ::syscall(SYS_sched_yield);
    }
  }
  ~ArenaLock() { g_arena.busy.clear(std::memory_order_release); }
  ArenaLock(const ArenaLock&) = delete;
  ArenaLock& operator=(const ArenaLock&) = delete;
};

}  // namespace

void* raw_allocate(size_t bytes) {
  if (bytes == 0) bytes = 1;
  const size_t cls = (bytes + kGrain - 1) / kGrain - 1;
  if (cls >= kClasses) return map(page_rounded(bytes));
  const size_t size = (cls + 1) * kGrain;
  ArenaLock lock;
  if (FreeBlock* b = g_arena.free[cls]) {
    g_arena.free[cls] = b->next;
    return b;
  }
  if (g_arena.chunk_left < size) {  // the rest of the old chunk is left unused
    g_arena.chunk = static_cast<char*>(map(kChunk));
    g_arena.chunk_left = kChunk;
  }
  void* p = g_arena.chunk;
  g_arena.chunk += size;
  g_arena.chunk_left -= size;
  return p;
}

void raw_deallocate(void* p, size_t bytes) {
  if (!p) return;
  if (bytes == 0) bytes = 1;
  const size_t cls = (bytes + kGrain - 1) / kGrain - 1;
  if (cls >= kClasses) {
    ::munmap(p, page_rounded(bytes));
    return;
  }
  ArenaLock lock;
  auto* b = static_cast<FreeBlock*>(p);
  b->next = g_arena.free[cls];
  g_arena.free[cls] = b;
}

}  // namespace seer::client
