#include "ns3_network.h"

#include <ns3/boolean.h>
#include <ns3/data-rate.h>
#include <ns3/double.h>
#include <ns3/drop-tail-queue.h>
#include <ns3/internet-stack-helper.h>
#include <ns3/mac48-address.h>
#include <ns3/net-device-queue-interface.h>
#include <ns3/output-stream-wrapper.h>
#include <ns3/prio-queue-disc.h>
#include <ns3/queue-size.h>
#include <ns3/simulator.h>
#include <ns3/string.h>
#include <ns3/tcp-congestion-ops.h>
#include <ns3/tcp-l4-protocol.h>
#include <ns3/traffic-control-helper.h>
#include <ns3/uinteger.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <stdexcept>
#include <string>

namespace seer::net::ns3_detail {

namespace {

PeekableScheduler* g_current_scheduler = nullptr;

std::uint64_t bits_per_second(double bytes_per_second) {
  return static_cast<std::uint64_t>(std::llround(bytes_per_second * 8));
}

std::uint32_t bytes_of(double bytes_per_second, Time ns) {
  const double bytes = bytes_per_second * static_cast<double>(ns) * 1e-9;
  return static_cast<std::uint32_t>(std::min(bytes, 4.0e9));
}

}  // namespace

// ---- PathRouting ----

ns3::TypeId PathRouting::GetTypeId() {
  static ns3::TypeId tid = ns3::TypeId("seer::PathRouting")
                               .SetParent<ns3::Ipv4RoutingProtocol>()
                               .AddConstructor<PathRouting>();
  return tid;
}

void PathRouting::add_local(ns3::Ipv4Address address) { local_.insert(address.Get()); }

void PathRouting::add_route(ns3::Ipv4Address destination, ns3::Ipv4Address source,
                            ns3::Ptr<ns3::NetDevice> device) {
  ns3::Ptr<ns3::Ipv4Route> route = ns3::Create<ns3::Ipv4Route>();
  route->SetDestination(destination);
  route->SetSource(source);
  route->SetGateway(ns3::Ipv4Address::GetAny());  // point-to-point: the next hop is the far end
  route->SetOutputDevice(device);
  routes_[destination.Get()] = route;
}

ns3::Ptr<ns3::Ipv4Route> PathRouting::RouteOutput(ns3::Ptr<ns3::Packet>,
                                                  const ns3::Ipv4Header& header,
                                                  ns3::Ptr<ns3::NetDevice>,
                                                  ns3::Socket::SocketErrno& sockerr) {
  const auto it = routes_.find(header.GetDestination().Get());
  if (it == routes_.end()) {
    sockerr = ns3::Socket::ERROR_NOROUTETOHOST;
    return nullptr;
  }
  sockerr = ns3::Socket::ERROR_NOTERROR;
  return it->second;
}

bool PathRouting::RouteInput(ns3::Ptr<const ns3::Packet> p, const ns3::Ipv4Header& header,
                             ns3::Ptr<const ns3::NetDevice> idev, UnicastForwardCallback ucb,
                             MulticastForwardCallback, LocalDeliverCallback lcb, ErrorCallback) {
  const std::uint32_t destination = header.GetDestination().Get();
  if (local_.contains(destination)) {
    lcb(p, header, static_cast<std::uint32_t>(ipv4_->GetInterfaceForDevice(idev)));
    return true;
  }
  const auto it = routes_.find(destination);
  if (it == routes_.end()) return false;
  ucb(it->second, p, header);
  return true;
}

void PathRouting::PrintRoutingTable(ns3::Ptr<ns3::OutputStreamWrapper> stream,
                                    ns3::Time::Unit) const {
  *stream->GetStream() << "seer::PathRouting: " << routes_.size() << " routes, " << local_.size()
                       << " local addresses\n";
}

void PathRouting::DoDispose() {
  routes_.clear();
  ipv4_ = nullptr;
  ns3::Ipv4RoutingProtocol::DoDispose();
}

ns3::Ptr<ns3::Ipv4RoutingProtocol> PathRoutingHelper::Create(ns3::Ptr<ns3::Node>) const {
  return ns3::CreateObject<PathRouting>();
}

// ---- DirectedDelayChannel ----

ns3::TypeId DirectedDelayChannel::GetTypeId() {
  static ns3::TypeId tid = ns3::TypeId("seer::DirectedDelayChannel")
                               .SetParent<ns3::PointToPointChannel>()
                               .AddConstructor<DirectedDelayChannel>();
  return tid;
}

void DirectedDelayChannel::set_directions(ns3::Time delay0, LinkBusy* busy0, ns3::Time delay1,
                                          LinkBusy* busy1) {
  delay_[0] = delay0;
  delay_[1] = delay1;
  busy_[0] = busy0;
  busy_[1] = busy1;
}

bool DirectedDelayChannel::TransmitStart(ns3::Ptr<const ns3::Packet> p,
                                         ns3::Ptr<ns3::PointToPointNetDevice> src,
                                         ns3::Time tx_time) {
  const std::size_t wire = src == GetPointToPointDevice(0) ? 0 : 1;
  ns3::Ptr<ns3::PointToPointNetDevice> dst = GetPointToPointDevice(1 - wire);
  if (LinkBusy* busy = busy_[wire]) {
    const std::int64_t now = ns3::Simulator::Now().GetTimeStep();
    if (busy->packets == 0) busy->first = now;
    busy->before += busy->end - busy->start;
    busy->start = now;
    busy->end = now + tx_time.GetTimeStep();
    ++busy->packets;
  }
  ++transmissions_;
  ns3::Simulator::ScheduleWithContext(dst->GetNode()->GetId(), tx_time + delay_[wire],
                                      &ns3::PointToPointNetDevice::Receive, dst, p->Copy());
  return true;
}

// ---- FlooredDctcp ----

ns3::TypeId FlooredDctcp::GetTypeId() {
  static ns3::TypeId tid =
      ns3::TypeId("seer::FlooredDctcp").SetParent<ns3::TcpDctcp>().AddConstructor<FlooredDctcp>();
  return tid;
}

uint32_t FlooredDctcp::GetSsThresh(ns3::Ptr<const ns3::TcpSocketState> tcb,
                                   uint32_t bytesInFlight) {
  return std::max(2 * tcb->m_segmentSize, ns3::TcpDctcp::GetSsThresh(tcb, bytesInFlight));
}

ns3::Ptr<ns3::TcpCongestionOps> FlooredDctcp::Fork() { return ns3::CopyObject<FlooredDctcp>(this); }

// ---- PeekableScheduler ----

ns3::TypeId PeekableScheduler::GetTypeId() {
  static ns3::TypeId tid = ns3::TypeId("seer::PeekableScheduler")
                               .SetParent<ns3::PriorityQueueScheduler>()
                               .AddConstructor<PeekableScheduler>();
  return tid;
}

PeekableScheduler::PeekableScheduler() { g_current_scheduler = this; }

PeekableScheduler::~PeekableScheduler() {
  if (g_current_scheduler == this) g_current_scheduler = nullptr;
}

PeekableScheduler* PeekableScheduler::current() { return g_current_scheduler; }

std::optional<std::int64_t> PeekableScheduler::next_time() const {
  if (IsEmpty()) return std::nullopt;
  return static_cast<std::int64_t>(PeekNext().key.m_ts);
}

// ---- Ns3Network ----

Ns3Network::Ns3Network(const Topology& topology, const Ns3Options& options) : options_(options) {
  ns3::InternetStackHelper stack;
  stack.SetIpv6StackInstall(false);
  stack.SetRoutingHelper(PathRoutingHelper());
  const ns3::TypeId tcp =
      options.tcp == Ns3Tcp::Dctcp ? ns3::TcpDctcp::GetTypeId() : ns3::TcpNewReno::GetTypeId();
  for (NodeId id = 0; id < topology.node_count(); ++id) {
    ns3::Ptr<ns3::Node> node = ns3::CreateObject<ns3::Node>();
    stack.Install(node);
    node->GetObject<ns3::TcpL4Protocol>()->SetAttribute("SocketType", ns3::TypeIdValue(tcp));
    ns3::Ptr<PathRouting> routing =
        ns3::DynamicCast<PathRouting>(node->GetObject<ns3::Ipv4>()->GetRoutingProtocol());
    nodes_.push_back(node);
    routing_.push_back(routing);
  }

  const auto links = static_cast<size_t>(topology.link_count());
  sender_.resize(links);
  returner_.resize(links);
  busy_.resize(links);
  std::vector<bool> paired(links, false);
  for (LinkId id = 0; id < topology.link_count(); ++id) {
    if (paired[static_cast<size_t>(id)]) continue;
    const Link& forward = topology.link(id);
    LinkId back = -1;
    for (const LinkId candidate : topology.out_links(forward.to)) {
      if (topology.link(candidate).to == forward.from && !paired[static_cast<size_t>(candidate)] &&
          candidate != id) {
        back = candidate;
        break;
      }
    }
    paired[static_cast<size_t>(id)] = true;
    // A link without a reverse gets one of the same rate and latency, for its ACKs.
    const Link& reverse = back >= 0 ? topology.link(back) : forward;
    if (back >= 0) paired[static_cast<size_t>(back)] = true;

    ns3::Ptr<ns3::PointToPointNetDevice> a = add_device(forward.from, forward.bandwidth);
    ns3::Ptr<ns3::PointToPointNetDevice> b = add_device(forward.to, reverse.bandwidth);
    ns3::Ptr<DirectedDelayChannel> channel = ns3::CreateObject<DirectedDelayChannel>();
    channel->set_directions(ns3::NanoSeconds(forward.latency), &busy_[static_cast<size_t>(id)],
                            ns3::NanoSeconds(reverse.latency),
                            back >= 0 ? &busy_[static_cast<size_t>(back)] : nullptr);
    a->Attach(channel);
    b->Attach(channel);
    channels_.push_back(channel);
    install_queue_disc(a, forward.bandwidth, ns3::NanoSeconds(forward.latency));
    install_queue_disc(b, reverse.bandwidth, ns3::NanoSeconds(reverse.latency));
    for (const auto& [node, device] : {std::pair{forward.from, a}, std::pair{forward.to, b}}) {
      ns3::Ptr<ns3::Ipv4> ipv4 = nodes_[static_cast<size_t>(node)]->GetObject<ns3::Ipv4>();
      ipv4->SetUp(ipv4->AddInterface(device));
    }
    sender_[static_cast<size_t>(id)] = a;
    returner_[static_cast<size_t>(id)] = b;
    if (back >= 0) {
      sender_[static_cast<size_t>(back)] = b;
      returner_[static_cast<size_t>(back)] = a;
    }
  }
}

ns3::Ptr<ns3::PointToPointNetDevice> Ns3Network::add_device(NodeId node, double bandwidth) {
  ns3::Ptr<ns3::PointToPointNetDevice> device = ns3::CreateObject<ns3::PointToPointNetDevice>();
  device->SetAddress(ns3::Mac48Address::Allocate());
  device->SetDataRate(ns3::DataRate(bits_per_second(bandwidth)));
  device->SetMtu(static_cast<std::uint16_t>(options_.mtu));
  // One packet in the device: the queue disc holds the queue, so RED sees (and marks) it.
  ns3::Ptr<ns3::DropTailQueue<ns3::Packet>> queue =
      ns3::CreateObject<ns3::DropTailQueue<ns3::Packet>>();
  queue->SetMaxSize(ns3::QueueSize(ns3::QueueSizeUnit::PACKETS, 1));
  device->SetQueue(queue);
  nodes_[static_cast<size_t>(node)]->AddDevice(device);
  ns3::Ptr<ns3::NetDeviceQueueInterface> interface =
      ns3::CreateObject<ns3::NetDeviceQueueInterface>();
  interface->GetTxQueue(0)->ConnectQueueTraces(queue);
  device->AggregateObject(interface);
  return device;
}

void Ns3Network::install_queue_disc(ns3::Ptr<ns3::NetDevice> device, double bandwidth,
                                    ns3::Time delay) {
  const auto mtu = static_cast<std::uint32_t>(options_.mtu);
  const std::uint32_t threshold = std::max(2 * mtu, bytes_of(bandwidth, options_.ecn_threshold));
  const std::uint32_t capacity =
      std::max({4 * threshold, 8 * mtu, bytes_of(bandwidth, options_.queue_capacity)});
  const ns3::QueueSizeValue size(ns3::QueueSize(ns3::QueueSizeUnit::BYTES, capacity));
  // DCTCP's queue: MinTh = MaxTh = K on the instantaneous queue (QW = 1) marks every ECN-capable
  // packet that finds K bytes or more queued, as DCTCP prescribes; deterministic (no random early
  // marks). NewReno's: drop-tail.
  const auto data_queue = [&](auto&& add) {
    if (options_.tcp == Ns3Tcp::NewReno) return add("ns3::FifoQueueDisc", "MaxSize", size);
    return add("ns3::RedQueueDisc", "MaxSize", size, "MinTh", ns3::DoubleValue(threshold), "MaxTh",
               ns3::DoubleValue(threshold), "QW", ns3::DoubleValue(1.0), "UseEcn",
               ns3::BooleanValue(true), "UseHardDrop", ns3::BooleanValue(false), "Gentle",
               ns3::BooleanValue(false), "MeanPktSize", ns3::UintegerValue(mtu), "LinkBandwidth",
               ns3::DataRateValue(ns3::DataRate(bits_per_second(bandwidth))), "LinkDelay",
               ns3::TimeValue(delay));
  };
  ns3::TrafficControlHelper helper;
  if (options_.prioritize_acks) {
    // Band 0, served first, takes packets of priority kAckPriority: the receivers' ACKs.
    std::string priomap;
    for (int p = 0; p < 16; ++p)
      priomap += std::string(p ? " " : "") + (p == kAckPriority ? "0" : "1");
    const uint16_t root =
        helper.SetRootQueueDisc("ns3::PrioQueueDisc", "Priomap", ns3::StringValue(priomap));
    const auto classes = helper.AddQueueDiscClasses(root, 2, "ns3::QueueDiscClass");
    helper.AddChildQueueDisc(root, classes[0], "ns3::FifoQueueDisc", "MaxSize", size);
    data_queue([&](const std::string& type, const auto&... args) {
      return helper.AddChildQueueDisc(root, classes[1], type, args...);
    });
  } else {
    data_queue([&](const std::string& type, const auto&... args) {
      return helper.SetRootQueueDisc(type, args...);
    });
  }
  ns3::QueueDiscContainer discs = helper.Install(device);
  queue_discs_.push_back(discs.Get(0));
}

std::uint64_t Ns3Network::transmissions() const {
  std::uint64_t total = 0;
  for (const auto& channel : channels_) total += channel->transmissions();
  return total;
}

std::uint64_t Ns3Network::drops() const {
  std::uint64_t total = 0;
  for (const auto& disc : queue_discs_) total += disc->GetStats().nTotalDroppedPackets;
  return total;
}

std::uint64_t Ns3Network::ecn_marks() const {
  std::uint64_t total = 0;
  for (const auto& disc : queue_discs_) total += disc->GetStats().nTotalMarkedPackets;
  return total;
}

}  // namespace seer::net::ns3_detail
