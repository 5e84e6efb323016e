#pragma once

#include <cstdint>
#include <string>

namespace seer::rt {

// Strict parsers for quantities with units; they throw ClusterError naming `field` and `text`.
//   bandwidth: B/s KB/s MB/s GB/s TB/s (powers of 1000), KiB/s MiB/s GiB/s, bps Kbps Mbps Gbps Tbps
//   size:      B KB MB GB TB KiB MiB GiB TiB
//   duration:  ns us ms s
double parse_bandwidth(const std::string& field, const std::string& text);
int64_t parse_bytes(const std::string& field, const std::string& text);
int64_t parse_duration_ns(const std::string& field, const std::string& text);

}  // namespace seer::rt
