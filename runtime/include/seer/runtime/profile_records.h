// What `seer profile` recorded: the files libseer_profiler.so writes in a real-GPU run
// (interposer/profiler/README.md has the line format), read and turned into kernel database
// entries.
//
// Kernel names are demangled, as Seer names kernels everywhere (CUPTI gives mangled symbols).
// A kernel launch marked with size arguments (an `args` line whose id an `external` line ties to
// the kernel) keeps them: they are part of its entry's key.
// Entries: one per (GPU model, kernel name, grid, block, dynamic shared memory). The duration is
// the mean of the launches' durations rounded to nearest (at least 1 ns) and `samples` their
// count; `source` is "seer profile". Kernels launched inside a recorded library call (a
// `library` line whose id an `external` line ties to the kernel's correlation id) are not kernel
// entries: each call's kernels add up to one call, and calls of one label and parameters make
// one library entry (kernel = the label, library_params = the parameters, geometry 1,1,1),
// the mean over calls. A call the session sees as several ops (several `library` lines with one
// id: a cuDNN attention is its GEMM work and its memory traffic) is split among its ops
// (split_call), so that the ops a later run looks up add up to the measured call. Memcpy and memset
// records are counted for the summary; the database holds kernels and library calls only.
//
// GPU model: `gpu_override` when given (a catalog name); otherwise the catalog GPU whose
// marketing name (what cudaGetDeviceProperties reports) equals the device's name.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "seer/runtime/kernel_db.h"

namespace seer::rt {

class ProfileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ProfileKernelTotal {
  std::string kernel;
  uint64_t launches = 0;
  int64_t total_ns = 0;
};

// One op of a recorded library call, as the session names it.
struct ProfileLibraryOp {
  std::string label;   // "cudnn sdpa fwd [bf16]"
  std::string params;  // "m=..,n=..,k=..,batch=.." or "bytes=.."
};

// A call's measured duration split among its ops in proportion to Seer's library model of each
// (simcore library_ns on `gpu`, a catalog name), with cumulative rounding so the shares add up to
// `total_ns` exactly; equal shares when an op's label or parameters are not the session's form or
// the GPU is unknown. One op gets the whole duration.
std::vector<int64_t> split_call(const std::vector<ProfileLibraryOp>& ops, const std::string& gpu,
                                int64_t total_ns);

struct ProfileCopyTotal {
  uint64_t count = 0;
  uint64_t bytes = 0;
  int64_t total_ns = 0;
};

class ProfileRecords {
 public:
  // Reads one process' records; throws ProfileError ("NAME:LINE: ...") on a malformed line.
  void add(const std::string& text, const std::string& name);
  void add_file(const std::string& path);

  // The database of what was read. Throws ProfileError when a device's name is not in the
  // catalog and no override was given, or when the override is not a catalog GPU.
  KernelDb database(const std::optional<std::string>& gpu_override) const;

  uint64_t kernel_launches() const { return kernel_launches_; }
  // Recorded library calls that launched kernels (a failed call launches none), of those whose
  // (first) label starts with `prefix` ("cublas", "cudnn").
  size_t library_calls(const std::string& prefix = "") const;
  int64_t kernel_ns() const { return kernel_ns_; }
  size_t processes() const { return processes_; }
  size_t processes_ended() const { return processes_ended_; }
  const std::vector<std::string>& errors() const { return errors_; }
  const std::map<std::string, ProfileCopyTotal>& copies() const { return copies_; }  // by kind
  const ProfileCopyTotal& memsets() const { return memsets_; }
  // Device names seen, each once.
  std::vector<std::string> device_names() const;
  // Kernels by total time, largest first (at most `n`).
  std::vector<ProfileKernelTotal> top_kernels(size_t n) const;

 private:
  struct Launch {
    size_t process;
    uint32_t device;
    uint32_t grid[3];
    uint32_t block[3];
    uint32_t shmem;
    int64_t duration_ns;
    uint32_t correlation;
    std::string name;
  };
  using LibraryCall = ProfileLibraryOp;
  std::string gpu_of(size_t process, uint32_t device,
                     const std::optional<std::string>& gpu_override) const;

  std::vector<Launch> launches_;
  std::map<std::pair<size_t, uint32_t>, std::string> device_names_;  // (process, device) -> name
  std::map<std::pair<size_t, uint64_t>, std::vector<LibraryCall>> library_calls_;  // -> its ops
  std::map<std::pair<size_t, uint64_t>, std::vector<uint64_t>> launch_args_;       // -> sizes
  std::map<std::pair<size_t, uint32_t>, uint64_t> external_;  // (process, correlation) -> id
  std::map<std::string, ProfileCopyTotal> copies_;
  ProfileCopyTotal memsets_;
  std::vector<std::string> errors_;
  uint64_t kernel_launches_ = 0;
  int64_t kernel_ns_ = 0;
  size_t processes_ = 0;
  size_t processes_ended_ = 0;
};

}  // namespace seer::rt
