#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "ns3_packet_model.h"
#include "seer/netsim/flow_model.h"

namespace seer::net::test {

// Every full TCP segment (9000-byte MTU: 8948 bytes of payload) crosses a link with 54 bytes of
// headers: IPv4 20, TCP 20, timestamp option 12, PPP 2.
inline constexpr double kPayload = 8948;
inline constexpr double kWire = 9002;

// Wire time of `bytes` of payload at `rate` bytes/s, in ns.
inline double wire_ns(double bytes, double rate) {
  const double segments = std::ceil(bytes / kPayload);
  return (bytes + segments * (kWire - kPayload)) / rate * 1e9;
}

// A new connection's first round trip carries at most 65,535 bytes (the SYN-ACK's window, not
// scaled): the link then idles for the round trip less that window's wire time. The round trip of
// the first segment over `hops` equal links: there and back, the segment stored and forwarded at
// each hop, and the second segment (delayed ACKs answer every second one).
inline double first_window_gap_ns(int hops, double latency, double rate) {
  const double segment = kWire / rate * 1e9;
  const double round_trip = 2 * hops * latency + (hops + 1) * segment;
  const double window = wire_ns(65535, rate);
  return std::max(0.0, round_trip - window);
}

// Steps the model the way Seer's engine does: always to next_event_time(). Every completion must
// come out of the advance_to that reaches exactly its time (next_event_time is a lower bound, so
// none may be overtaken). Returns the completion time of each flow.
template <typename Model>
std::map<FlowId, Time> drain(Model& model, int* steps = nullptr) {
  std::map<FlowId, Time> done;
  int count = 0;
  while (const auto t = model.next_event_time()) {
    ++count;
    for (const CompletedFlow& f : model.advance_to_with_times(*t)) {
      EXPECT_EQ(f.time, *t) << "flow " << f.id << " completed before the lower bound";
      done[f.id] = f.time;
    }
  }
  if (steps) *steps = count;
  return done;
}

}  // namespace seer::net::test
