#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include "wire.pb.h"

namespace seer::client {

// Simulated device memory: address space reserved with mmap(PROT_NONE) per GPU so pointers are
// unique and a host dereference faults; live bytes counted against the target GPU's capacity.
class DeviceMemory {
 public:
  static DeviceMemory& instance();
  void configure(const wire::Welcome& welcome);

  static constexpr uint64_t kGranularity = 512;

  enum class AllocResult { kOk, kOutOfMemory, kInvalid };
  struct Allocation {
    int gpu;
    uint64_t base;
    uint64_t size;  // rounded
  };
  AllocResult allocate(int gpu, uint64_t bytes, uint64_t& address);
  std::optional<Allocation> release(uint64_t address);
  // The allocation containing `address`, if it is simulated device memory.
  std::optional<Allocation> find(uint64_t address) const;
  // Which GPU's reserved range contains the address (allocated or not).
  int gpu_of(uint64_t address) const;
  uint64_t used(int gpu) const;
  uint64_t capacity(int gpu) const;  // total minus the context reserve
  uint64_t total(int gpu) const;

  // The virtual-memory API (cuMemAddressReserve/Create/Map, PyTorch's expandable segments).
  // Reserved ranges lie in the GPU's address space but hold nothing until mapped; a physical
  // allocation counts against capacity like allocate(); a mapped range is live device memory
  // (find() returns the mapping, gpu_of() the GPU).
  static constexpr uint64_t kVmmGranularity = 2ull << 20;
  AllocResult reserve_address(int gpu, uint64_t size, uint64_t alignment, uint64_t& address);
  bool free_address(uint64_t address, uint64_t size);
  AllocResult create_physical(int gpu, uint64_t size, uint64_t& handle);
  bool release_physical(uint64_t handle);
  struct Physical {
    int gpu;
    uint64_t size;
  };
  std::optional<Physical> physical(uint64_t handle) const;
  bool map(uint64_t address, uint64_t size, uint64_t offset, uint64_t handle);
  bool unmap(uint64_t address, uint64_t size);

  // The program's bytes (see payload.h): every GPU's address range has a host shadow, a
  // read-write MAP_NORESERVE mapping of the same size at a fixed distance, so the device range
  // stays PROT_NONE and untouched pages cost nothing. shadow() is the host address holding the
  // bytes of [address, address+bytes), or nullptr when that range is not inside one GPU's range
  // (or the GPU has no shadow). discard() zeroes a range and returns its whole pages to the OS.
  // VMM mappings are shadowed per virtual address: two mappings of one physical allocation do
  // not alias, and unmapping zeroes the range.
  void* shadow(uint64_t address, uint64_t bytes) const;
  void discard(uint64_t address, uint64_t bytes);

  // Pinned host memory (cudaMallocHost, cudaHostAlloc, cudaHostRegister).
  void add_pinned(uint64_t base, uint64_t size);
  bool remove_pinned(uint64_t base);
  bool is_pinned(uint64_t address) const;

 private:
  struct Gpu {
    uint64_t base = 0;  // reserved range start (0 until first use)
    uint64_t span = 0;  // reserved bytes
    uint64_t total = 0;
    uint64_t reserve = 0;
    uint64_t used = 0;
    std::map<uint64_t, uint64_t> free_ranges;  // offset -> size
    std::map<uint64_t, uint64_t> live;         // address -> rounded size
    uint64_t shadow = 0;                       // host shadow of [base, base + span), or 0
    std::map<uint64_t, uint64_t> reserved;     // VMM: address -> size
    struct Mapping {
      uint64_t size;
      uint64_t handle;
    };
    std::map<uint64_t, Mapping> mapped;  // VMM: address -> mapping
  };
  struct PhysicalState {
    int gpu;
    uint64_t size;
    int mappings = 0;
    bool released = false;
  };
  bool reserve_locked(Gpu& g);
  uint64_t take_range_locked(Gpu& g, uint64_t size, uint64_t alignment);
  void give_range_locked(Gpu& g, uint64_t offset, uint64_t size);
  // Returns the range's whole pages to the OS (they read as zeros); `zero_edges` also zeroes the
  // partial pages at both ends (freed memory need not be zeroed: cudaMalloc does not either).
  void discard_locked(const Gpu& g, uint64_t address, uint64_t bytes, bool zero_edges);
  const Gpu* gpu_containing_locked(uint64_t address, uint64_t bytes) const;
  void install_fault_handler();

  mutable std::mutex mu_;
  std::vector<Gpu> gpus_;
  std::map<uint64_t, uint64_t> pinned_;  // base -> size
  std::map<uint64_t, PhysicalState> physicals_;
  uint64_t next_handle_ = 1;
};

}  // namespace seer::client
