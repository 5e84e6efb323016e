#pragma once

// Reading PyTorch kernel names (demangled): template arguments and data-type sizes.

#include <string>
#include <vector>

namespace seer::sim::aten_names {

// The template arguments of the kernel: from the first '<' to the '>' that precedes the
// parameter list.
std::string template_args(const std::string& name);

// The top-level template arguments of `args`, split at commas outside nested brackets.
std::vector<std::string> split_args(const std::string& args);

// Size of the first data type named in `args` (0 when none).
int first_element_bytes(const std::string& args);

// The k of the first OpaqueType<k> in `args` (0 when none).
int opaque_type_bytes(const std::string& args);

// The integer value of a template argument ("128", "32u"), or -1.
long template_int(const std::string& arg);

// Bounds on integer template arguments that size a tile or a head: a name claiming more is not
// one of PyTorch's kernels, and products of such values must not overflow.
constexpr long kMaxThreadsPerBlock = 1024;
constexpr long kMaxHeadDim = 1024;

// "true"/"false" template argument.
bool template_true(const std::string& arg);

}  // namespace seer::sim::aten_names
