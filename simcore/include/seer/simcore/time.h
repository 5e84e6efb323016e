#pragma once

#include <cstdint>
#include <limits>

namespace seer::sim {

// Virtual time: nanoseconds since the session started.
using Time = int64_t;
inline constexpr Time kNever = std::numeric_limits<Time>::max();

}  // namespace seer::sim
