#pragma once

#include <cstdint>
#include <memory>

#include "seer/netsim/network_model.h"
#include "seer/netsim/topology.h"
#include "seer/netsim/types.h"

namespace seer::net {

// The packet-level backend (netsim/ns3/README.md): the same flows, sent as TCP connections over
// ns-3 point-to-point links built from the topology. This header needs no ns-3 headers; when
// Seer was built without ns-3 the factory throws std::runtime_error.

enum class Ns3Tcp {
  Dctcp,    // DCTCP with ECN marking at a RED queue threshold (the default)
  NewReno,  // NewReno over drop-tail queues
};

// Settings of the ns-3 network. The defaults and why are in netsim/ns3/README.md.
struct Ns3Options {
  int mtu = 9000;  // IP MTU of every link, bytes (jumbo frames); TCP segments carry mtu - 52
  Ns3Tcp tcp = Ns3Tcp::Dctcp;
  int initial_cwnd = 32;                    // segments
  double dctcp_initial_alpha = 0;           // DCTCP's congestion estimate before the first ACK
  Time min_rto = 1'000'000;                 // ns; also the SYN retransmission timeout
  Time ecn_threshold = 10'000;              // DCTCP marking threshold K: ns at the link's rate
  Time queue_capacity = 200'000;            // per-port buffer of each class: ns at the link's rate
  std::int64_t socket_buffer = 16ll << 20;  // TCP send and receive buffers, bytes
  Time delayed_ack_timeout = 10'000;        // ns; an ACK goes out every 2nd segment otherwise
  bool prioritize_acks = true;              // receivers' packets (ACKs) in a strict-priority class
};

// True when this Seer was built with the ns-3 backend.
bool ns3_available();

// A packet-level NetworkModel over `topology`, which must outlive it and not grow afterwards.
// ns-3's simulator is one per process: a second model while one exists throws std::logic_error.
std::unique_ptr<NetworkModel> make_ns3_model(const Topology& topology);
std::unique_ptr<NetworkModel> make_ns3_model(const Topology& topology, const Ns3Options& options);

}  // namespace seer::net
