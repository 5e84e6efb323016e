// The unit parsers of cluster descriptions (runtime/include/seer/runtime/units.h): every text is
// either a value or a ClusterError; values are finite and not negative.

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "seer/runtime/cluster.h"
#include "seer/runtime/units.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const double bw = seer::rt::parse_bandwidth("bw", text);
    if (!std::isfinite(bw) || bw < 0) std::abort();
  } catch (const seer::rt::ClusterError&) {
  }
  try {
    if (seer::rt::parse_bytes("size", text) < 0) std::abort();
  } catch (const seer::rt::ClusterError&) {
  }
  try {
    if (seer::rt::parse_duration_ns("latency", text) < 0) std::abort();
  } catch (const seer::rt::ClusterError&) {
  }
  return 0;
}
