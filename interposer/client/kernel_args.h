#pragma once

// Launch arguments the session's kernel-family models read (simcore/src/ATEN_KERNELS.md): which
// bytes of which parameter, chosen once per kernel from its mangled name. A launch copies only
// those (at most PodRecord::kMaxSizes values); every other argument stays in the process.

#include <cstdint>
#include <vector>

#include "kernel_image.h"

namespace seer::client {

struct ArgField {
  uint8_t param = 0;    // ordinal in the launch's args array
  uint16_t offset = 0;  // byte offset inside that parameter (a struct passed by value)
  uint8_t bytes = 4;    // 1: an unsigned byte; 4: a signed int; 8: a signed 64-bit int
};

struct ArgSpec {
  int n = 0;
  ArgField fields[4];
  // reduce_kernel's ReduceOp: find its ReduceConfig (16 ints, a few dozen bytes into param 0)
  // and read num_inputs, num_outputs, ctas_per_output and (block_width << 16 | block_height).
  bool reduce_config = false;
};

// The fields to read for a kernel, or nullptr when no model needs its arguments.
const ArgSpec* arg_spec_for_name(const char* mangled);

// Whether the kernel's parameter layout (from its image, by ordinal) has every field where the
// spec reads it: a scalar read at offset 0 of a parameter of at most 8 bytes must have that
// parameter's exact size (an int that became a long is a changed signature), a field of a larger
// parameter (a struct by value) must lie inside it. An empty layout (unknown) fits.
bool arg_spec_fits(const ArgSpec& spec, const std::vector<ParamInfo>& params);

// Reads the fields from a <<<>>>/cudaLaunchKernel args array; returns how many were read (0 when
// `args` is null). Negative values read as 0.
int read_launch_args(const ArgSpec& spec, void** args, uint64_t* out);

}  // namespace seer::client
