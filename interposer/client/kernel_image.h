#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace seer::client {

// What a GPU code image says about its kernels and globals: enough to name launches, answer
// cuFuncGetAttribute and check where a launch's arguments lie. Images are ELF cubins, fat
// binaries (0xBA55ED50 containers, optionally behind the 0x466243B1 wrapper; zstd-compressed
// entries are decompressed) or PTX text.
struct ParamInfo {
  uint32_t offset = 0;  // in the kernel's parameter buffer
  uint32_t size = 0;    // bytes
};

struct KernelInfo {
  std::string name;        // as in the image (mangled)
  int registers = -1;      // per thread; -1 when unknown (PTX)
  int local_bytes = -1;    // stack frame per thread
  int static_shared = -1;  // bytes of __shared__ declared in the kernel
  int max_threads = -1;    // __launch_bounds__ product, -1 when none
  int const_param_bytes = -1;
  std::vector<ParamInfo> params;  // by ordinal (EIATTR_KPARAM_INFO); empty when unknown (PTX)
};

struct GlobalInfo {
  std::string name;
  uint64_t size = 0;
};

struct ImageInfo {
  enum class Format { kUnknown, kCubin, kFatbin, kPtx };
  Format format = Format::kUnknown;
  int sm = 0;                       // the ELF's sm (e.g. 90) when one was chosen
  uint64_t bytes = 0;               // a cubin's extent (ELF headers and sections)
  bool skipped_compressed = false;  // an entry compressed other than with zstd was left out
  std::vector<KernelInfo> kernels;
  std::vector<GlobalInfo> globals;

  const KernelInfo* kernel(const std::string& name) const;
  const GlobalInfo* global(const std::string& name) const;
};

// Parses an image. `size` may be 0 when the caller does not know it (cuModuleLoadData): the
// headers then bound the reads. `target_sm` picks the best ELF of a fat binary (the highest
// sm not above it; PTX when there is none). Returns false when nothing could be recognised.
bool parse_kernel_image(const void* data, size_t size, int target_sm, ImageInfo& out);

}  // namespace seer::client
