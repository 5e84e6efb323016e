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

#include "wire.pb.h"

namespace seer::client {

struct TritonIr {
  wire::TritonKernel model;  // as the session receives it at registration
  struct SizeParam {
    int index = 0;  // position in the kernel's parameter list (the launch's kernelParams)
    int bytes = 4;  // i32 or i64
  };
  std::vector<SizeParam> size_params;  // parallel to model.size_names()
};

// Parses the TTIR text of the module holding `kernel`. False when it has no such function.
bool parse_triton_ir(std::string_view text, std::string_view kernel, TritonIr& out);

// The TTIR of a Triton kernel, or nullptr when none is found. `module_path` is the file a module
// was loaded from (empty for an image in memory): its directory is Triton's cache entry. For an
// image in memory, Triton's cache directories are searched for `<kernel>.cubin` with the same
// bytes. The result lives for the process.
const TritonIr* find_triton_ir(const std::string& kernel, const std::string& module_path,
                               const void* image, size_t image_bytes);

// Copies the launch's size arguments into `sizes` (at most `max`); returns how many.
int read_size_args(const TritonIr& ir, void** params, uint64_t* sizes, int max);

}  // namespace seer::client
