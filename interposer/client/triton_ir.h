#pragma once

// What the session's Triton model needs from a Triton kernel, read from the Triton IR (`.ttir`)
// that Triton writes beside the cubin in its cache: every load, store and atomic (element size,
// tile size, and which of the kernel's named sizes — xnumel, ynumel, r0_numel, ... — or the
// program id its address depends on), and where those size arguments sit in the launch's
// parameter list. Read once per kernel, when the kernel is first looked up; the launch path only
// copies the size arguments.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "triton_sizes.h"
#include "wire.pb.h"

namespace seer::client {

struct TritonIr {
  wire::TritonKernel model;  // as the session receives it at registration
  using SizeParam = TritonSizeParam;
  std::vector<SizeParam> size_params;  // parallel to model.size_names()
};

// Parses the TTIR text of the module holding `kernel`. False when it has no such function.
bool parse_triton_ir(std::string_view text, std::string_view kernel, TritonIr& out);

// The TTIR of a Triton kernel, or nullptr when none is found (the cache entry as
// triton_cache_entry finds it). The result lives for the process.
const TritonIr* find_triton_ir(const std::string& kernel, const std::string& module_path,
                               const void* image, size_t image_bytes);

// Copies the launch's size arguments into `sizes` (at most `max`); returns how many.
inline int read_size_args(const TritonIr& ir, void** params, uint64_t* sizes, int max) {
  return read_size_args(ir.size_params, params, sizes, max);
}

}  // namespace seer::client
