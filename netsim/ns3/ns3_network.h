#pragma once

// The topology as ns-3 objects. Only ns3_network.cpp and ns3_packet_model.cpp include this (ns-3
// headers are slow to compile).

#include <ns3/ipv4-route.h>
#include <ns3/ipv4-routing-helper.h>
#include <ns3/ipv4-routing-protocol.h>
#include <ns3/ipv4.h>
#include <ns3/net-device.h>
#include <ns3/node.h>
#include <ns3/nstime.h>
#include <ns3/point-to-point-channel.h>
#include <ns3/point-to-point-net-device.h>
#include <ns3/priority-queue-scheduler.h>
#include <ns3/ptr.h>
#include <ns3/queue-disc.h>
#include <ns3/tcp-dctcp.h>

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "seer/netsim/ns3_model.h"
#include "seer/netsim/topology.h"

namespace seer::net::ns3_detail {

// The socket priority of receivers' packets (ns-3 maps IP TOS 0x10, low delay, to it) when
// Ns3Options::prioritize_acks is on.
inline constexpr int kAckPriority = 6;
inline constexpr std::uint8_t kAckTos = 0x10;

// Busy time of one direction of a link, in ns-3 time steps (ps).
struct LinkBusy {
  std::int64_t before = 0;  // transmission time of every packet before the current one
  std::int64_t start = 0;   // current (or last) packet
  std::int64_t end = 0;
  std::int64_t first = 0;  // start of the first packet
  std::uint64_t packets = 0;

  std::int64_t busy_until(std::int64_t now) const {
    if (now <= start) return before;
    return before + (now < end ? now - start : end - start);
  }
};

// Forwarding by destination address alone. Every route gets two addresses of its own (one per
// end), so a table address -> outgoing device per node pins a flow's packets to the caller's path
// and its ACKs to the reverse links.
class PathRouting : public ns3::Ipv4RoutingProtocol {
 public:
  static ns3::TypeId GetTypeId();

  void add_local(ns3::Ipv4Address address);
  // Packets to `destination` leave through `device`; `source` is this node's address of the route.
  void add_route(ns3::Ipv4Address destination, ns3::Ipv4Address source,
                 ns3::Ptr<ns3::NetDevice> device);

  ns3::Ptr<ns3::Ipv4Route> RouteOutput(ns3::Ptr<ns3::Packet> p, const ns3::Ipv4Header& header,
                                       ns3::Ptr<ns3::NetDevice> oif,
                                       ns3::Socket::SocketErrno& sockerr) override;
  bool RouteInput(ns3::Ptr<const ns3::Packet> p, const ns3::Ipv4Header& header,
                  ns3::Ptr<const ns3::NetDevice> idev, UnicastForwardCallback ucb,
                  MulticastForwardCallback mcb, LocalDeliverCallback lcb,
                  ErrorCallback ecb) override;
  void NotifyInterfaceUp(uint32_t) override {}
  void NotifyInterfaceDown(uint32_t) override {}
  void NotifyAddAddress(uint32_t, ns3::Ipv4InterfaceAddress) override {}
  void NotifyRemoveAddress(uint32_t, ns3::Ipv4InterfaceAddress) override {}
  void SetIpv4(ns3::Ptr<ns3::Ipv4> ipv4) override { ipv4_ = ipv4; }
  void PrintRoutingTable(ns3::Ptr<ns3::OutputStreamWrapper> stream,
                         ns3::Time::Unit unit) const override;

 protected:
  void DoDispose() override;

 private:
  ns3::Ptr<ns3::Ipv4> ipv4_;
  std::unordered_set<std::uint32_t> local_;
  std::unordered_map<std::uint32_t, ns3::Ptr<ns3::Ipv4Route>> routes_;
};

class PathRoutingHelper : public ns3::Ipv4RoutingHelper {
 public:
  PathRoutingHelper* Copy() const override { return new PathRoutingHelper(*this); }
  ns3::Ptr<ns3::Ipv4RoutingProtocol> Create(ns3::Ptr<ns3::Node> node) const override;
};

// A point-to-point channel whose two directions have their own propagation delay (the topology's
// links are directed), and which records each direction's busy time.
class DirectedDelayChannel : public ns3::PointToPointChannel {
 public:
  static ns3::TypeId GetTypeId();

  // Direction 0 is from the first attached device to the second. A null LinkBusy is not recorded.
  void set_directions(ns3::Time delay0, LinkBusy* busy0, ns3::Time delay1, LinkBusy* busy1);
  std::uint64_t transmissions() const { return transmissions_; }

  bool TransmitStart(ns3::Ptr<const ns3::Packet> p, ns3::Ptr<ns3::PointToPointNetDevice> src,
                     ns3::Time tx_time) override;

 private:
  ns3::Time delay_[2];
  LinkBusy* busy_[2] = {nullptr, nullptr};
  std::uint64_t transmissions_ = 0;
};

// DCTCP with Linux's floor on the reduced window: ns-3 3.37 cuts ssthresh to (1 - alpha / 2) x
// cwnd with no floor, and a window below one segment with nothing in flight never sends again
// (silly-window avoidance waits for an ACK that cannot come). Linux keeps at least 2 segments.
class FlooredDctcp : public ns3::TcpDctcp {
 public:
  static ns3::TypeId GetTypeId();
  std::string GetName() const override { return "FlooredDctcp"; }
  uint32_t GetSsThresh(ns3::Ptr<const ns3::TcpSocketState> tcb, uint32_t bytesInFlight) override;
  ns3::Ptr<ns3::TcpCongestionOps> Fork() override;
};

// The event queue of the simulator, readable from outside: advance_to needs to know whether
// events remain at its target time, next_event_time when the next event is.
class PeekableScheduler : public ns3::PriorityQueueScheduler {
 public:
  static ns3::TypeId GetTypeId();
  PeekableScheduler();
  ~PeekableScheduler() override;

  // The scheduler of the current simulator (the last one created), or null.
  static PeekableScheduler* current();
  // Time step of the earliest pending event (cancelled ones included); nullopt when empty.
  std::optional<std::int64_t> next_time() const;
};

// Every topology node as an ns-3 node with an IPv4 stack and PathRouting; every directed link
// with its reverse (when the topology has one) as a DirectedDelayChannel between two
// point-to-point devices, each sending at its own link's rate through the queue disc of the
// chosen TCP variant.
class Ns3Network {
 public:
  Ns3Network(const Topology& topology, const Ns3Options& options);

  ns3::Ptr<ns3::Node> node(NodeId id) const { return nodes_.at(static_cast<size_t>(id)); }
  PathRouting& routing(NodeId id) const { return *routing_.at(static_cast<size_t>(id)); }
  // The device at link.from that sends along the link.
  ns3::Ptr<ns3::NetDevice> sender(LinkId id) const { return sender_.at(static_cast<size_t>(id)); }
  // The device at link.to on the same channel: it sends back towards link.from.
  ns3::Ptr<ns3::NetDevice> returner(LinkId id) const {
    return returner_.at(static_cast<size_t>(id));
  }
  const LinkBusy& busy(LinkId id) const { return busy_.at(static_cast<size_t>(id)); }
  int link_count() const { return static_cast<int>(sender_.size()); }

  std::uint64_t transmissions() const;
  std::uint64_t drops() const;
  std::uint64_t ecn_marks() const;

 private:
  ns3::Ptr<ns3::PointToPointNetDevice> add_device(NodeId node, double bandwidth);
  void install_queue_disc(ns3::Ptr<ns3::NetDevice> device, double bandwidth, ns3::Time delay);

  const Ns3Options options_;
  std::vector<ns3::Ptr<ns3::Node>> nodes_;
  std::vector<ns3::Ptr<PathRouting>> routing_;
  std::vector<ns3::Ptr<ns3::NetDevice>> sender_;
  std::vector<ns3::Ptr<ns3::NetDevice>> returner_;
  std::vector<LinkBusy> busy_;  // by LinkId; never resized after construction
  std::vector<ns3::Ptr<DirectedDelayChannel>> channels_;
  std::vector<ns3::Ptr<ns3::QueueDisc>> queue_discs_;
};

}  // namespace seer::net::ns3_detail
