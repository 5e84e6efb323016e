#include "ns3_packet_model.h"

#include <ns3/boolean.h>
#include <ns3/double.h>
#include <ns3/inet-socket-address.h>
#include <ns3/object-factory.h>
#include <ns3/packet.h>
#include <ns3/simulator.h>
#include <ns3/socket.h>
#include <ns3/tcp-socket-base.h>
#include <ns3/tcp-socket-factory.h>
#include <ns3/uinteger.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "ns3_network.h"

namespace seer::net {

namespace {

using ns3_detail::LinkBusy;
using ns3_detail::Ns3Network;
using ns3_detail::PeekableScheduler;

constexpr std::int64_t kPsPerNs = 1000;
constexpr double kPsPerSecond = 1e12;
// The largest Seer time ns-3 can represent at picosecond resolution (about 106 days).
constexpr Time kMaxTime = std::numeric_limits<std::int64_t>::max() / kPsPerNs - 1;
constexpr std::uint16_t kListenPort = 80;
constexpr std::uint32_t kFirstPort = 1024;
constexpr int kTcpIpHeaders = 52;  // IPv4 20 + TCP 20 + timestamp option 12, in every segment
// The least any segment adds on the wire (IPv4 and TCP without options, PPP 2): lower bounds use
// it so that they hold whatever options TCP sends.
constexpr int kMinOverhead = 42;
constexpr std::uint32_t kWriteChunk = 1u << 20;
constexpr FlowId kNoFlow = std::numeric_limits<FlowId>::max();

std::atomic<bool> g_model_alive{false};

Time ceil_ns(std::int64_t ps) { return ps >= 0 ? (ps + kPsPerNs - 1) / kPsPerNs : ps / kPsPerNs; }

std::int64_t now_ps() { return ns3::Simulator::Now().GetTimeStep(); }

// ns-3 fixes its time resolution once per process, before the first Simulator::Run.
void use_picoseconds() {
  static const bool done = [] {
    ns3::Time::SetResolution(ns3::Time::PS);
    return true;
  }();
  (void)done;
}

void validate(const Ns3Options& o) {
  const auto fail = [](const std::string& what) {
    throw std::invalid_argument("ns-3 options: " + what);
  };
  if (o.mtu < 576 || o.mtu > 65535)
    fail("mtu = " + std::to_string(o.mtu) + ": not in [576, 65535]");
  if (o.initial_cwnd < 1) fail("initial_cwnd = " + std::to_string(o.initial_cwnd) + ": below 1");
  if (o.min_rto <= 0) fail("min_rto = " + std::to_string(o.min_rto) + " ns: not positive");
  if (o.ecn_threshold < 0) fail("ecn_threshold = " + std::to_string(o.ecn_threshold) + " ns");
  if (o.queue_capacity < 0) fail("queue_capacity = " + std::to_string(o.queue_capacity) + " ns");
  if (o.socket_buffer < 2 * o.mtu || o.socket_buffer > std::numeric_limits<std::uint32_t>::max()) {
    fail("socket_buffer = " + std::to_string(o.socket_buffer) + ": not in [2 * mtu, 2^32)");
  }
  if (!(o.dctcp_initial_alpha >= 0 && o.dctcp_initial_alpha <= 1)) {
    fail("dctcp_initial_alpha = " + std::to_string(o.dctcp_initial_alpha) + ": not in [0, 1]");
  }
  if (o.delayed_ack_timeout <= 0) {
    fail("delayed_ack_timeout = " + std::to_string(o.delayed_ack_timeout) + " ns: not positive");
  }
}

}  // namespace

class Ns3Model::Impl {
 public:
  Impl(const Topology& topology, const Ns3Options& options);
  ~Impl();

  FlowId start(Time now, const Path& path, double bytes, double rate_cap, double weight);
  std::optional<Time> next_event() const;
  std::vector<CompletedFlow> advance(Time t);
  double utilization(LinkId id) const;
  Stats stats() const;

  Time now_ = 0;
  int active_ = 0;
  int waiting_ = 0;
  std::vector<Time> completion_;  // by FlowId; -1 until complete

 private:
  // A path in use: the two addresses its flows are routed by, and what the bounds need.
  struct Route {
    NodeId src = 0;
    NodeId dst = 0;
    ns3::Ipv4Address src_address;
    ns3::Ipv4Address dst_address;
    std::vector<double> rate;          // bytes/s of each link
    std::vector<std::int64_t> tail;    // ps: latency of the link and every later one
    std::int64_t min_packet_time = 0;  // ps: the smallest packet crossing every link
    std::vector<std::uint32_t> connections;
  };

  // One TCP connection along a route; it carries one flow at a time and is kept for the next.
  struct Connection {
    std::uint32_t route = 0;
    ns3::Ptr<ns3::Socket> sender;
    ns3::Ptr<ns3::Socket> receiver;
    bool established = false;
    // Bytes over the connection's life: given to it, handed by TCP to IP, delivered.
    std::int64_t assigned = 0;
    std::int64_t sent = 0;
    std::int64_t received = 0;
    std::int64_t all_sent_at = 0;  // ps: when `sent` last reached `assigned`
    // The flow in progress.
    FlowId flow = kNoFlow;
    std::int64_t flow_bytes = 0;
    std::int64_t flow_written = 0;  // bytes of it written into the socket
    double rate = kUnlimitedRate;   // bytes/s the application may write
    std::int64_t data_start = 0;    // ps
    double tokens = 0;              // rate-capped: bytes the application may write now
    std::int64_t refilled_at = 0;   // ps
    bool sending = false;
    ns3::EventId pacing;
  };

  struct Flow {
    std::uint32_t route = 0;
    std::vector<std::uint32_t> connections;
    int pending = 0;  // connections still delivering
    std::int64_t data_start = 0;
  };

  std::uint32_t route_of(const Path& path);
  std::uint32_t open_connection(std::uint32_t route);
  void configure(ns3::Ptr<ns3::Socket> socket) const;
  void ensure_listener(NodeId node);
  void on_accept(ns3::Ptr<ns3::Socket> socket, const ns3::Address& from);
  void on_receive(std::uint32_t index);
  void on_sent(std::uint32_t index, std::uint32_t bytes);
  void begin_data(FlowId id);
  void pump(std::uint32_t index);
  void complete(FlowId id);
  void run_until(Time t);
  std::int64_t bound_of(FlowId id, const Flow& flow) const;

  const Topology& topology_;
  const Ns3Options options_;
  const std::int64_t segment_;
  PeekableScheduler* scheduler_ = nullptr;
  std::unique_ptr<Ns3Network> network_;
  std::map<std::vector<LinkId>, std::uint32_t> route_index_;
  std::vector<Route> routes_;
  std::vector<Connection> connections_;
  std::unordered_map<std::uint64_t, std::uint32_t> connection_by_peer_;  // address << 16 | port
  std::vector<ns3::Ptr<ns3::Socket>> listeners_;                         // by NodeId
  std::unordered_map<FlowId, Flow> flows_;
  std::vector<CompletedFlow> done_;          // delivered, not yet returned by advance
  std::vector<CompletedFlow> without_data_;  // flows that never touch the network
  FlowId next_id_ = 0;
  std::string failure_;
  std::uint64_t runs_ = 0;
  std::uint64_t connections_opened_ = 0;

  struct Sample {
    bool seen = false;
    std::int64_t time = 0;
    std::int64_t busy = 0;
    double value = 0;
  };
  mutable std::vector<Sample> samples_;  // by LinkId: link_utilization's previous query
  mutable bool bound_valid_ = false;
  mutable std::optional<Time> bound_;
};

Ns3Model::Impl::Impl(const Topology& topology, const Ns3Options& options)
    : topology_(topology), options_(options), segment_(options.mtu - kTcpIpHeaders) {
  validate(options);
  bool expected = false;
  if (!g_model_alive.compare_exchange_strong(expected, true)) {
    throw std::logic_error(
        "an ns-3 network model already exists in this process: ns-3's simulator is a "
        "process-wide singleton, so destroy the other model first");
  }
  try {
    use_picoseconds();
    ns3::Simulator::Destroy();  // a fresh simulator at time 0
    ns3::ObjectFactory factory;
    factory.SetTypeId(PeekableScheduler::GetTypeId());
    ns3::Simulator::SetScheduler(factory);
    scheduler_ = PeekableScheduler::current();
    network_ = std::make_unique<Ns3Network>(topology, options);
    listeners_.resize(static_cast<size_t>(topology.node_count()));
    samples_.resize(static_cast<size_t>(topology.link_count()));
  } catch (...) {
    network_.reset();
    ns3::Simulator::Destroy();
    g_model_alive = false;
    throw;
  }
}

Ns3Model::Impl::~Impl() {
  // Nothing may call back into this object while ns-3 tears down.
  for (Connection& c : connections_) {
    c.pacing.Cancel();
    if (c.sender) {
      c.sender->SetConnectCallback(ns3::MakeNullCallback<void, ns3::Ptr<ns3::Socket>>(),
                                   ns3::MakeNullCallback<void, ns3::Ptr<ns3::Socket>>());
      c.sender->SetSendCallback(ns3::MakeNullCallback<void, ns3::Ptr<ns3::Socket>, uint32_t>());
      c.sender->SetDataSentCallback(ns3::MakeNullCallback<void, ns3::Ptr<ns3::Socket>, uint32_t>());
    }
    if (c.receiver)
      c.receiver->SetRecvCallback(ns3::MakeNullCallback<void, ns3::Ptr<ns3::Socket>>());
  }
  for (const auto& listener : listeners_) {
    if (!listener) continue;
    listener->SetAcceptCallback(
        ns3::MakeNullCallback<bool, ns3::Ptr<ns3::Socket>, const ns3::Address&>(),
        ns3::MakeNullCallback<void, ns3::Ptr<ns3::Socket>, const ns3::Address&>());
  }
  connections_.clear();
  listeners_.clear();
  network_.reset();
  ns3::Simulator::Destroy();
  g_model_alive = false;
}

std::uint32_t Ns3Model::Impl::route_of(const Path& path) {
  const auto found = route_index_.find(path.links);
  if (found != route_index_.end()) return found->second;
  if (routes_.size() >= (1u << 23) - 1) {
    throw std::runtime_error("ns-3 model: more than 8 million distinct paths");
  }
  std::vector<NodeId> nodes;
  for (size_t i = 0; i < path.links.size(); ++i) {
    const LinkId id = path.links[i];
    if (id < 0 || id >= network_->link_count()) {
      throw std::out_of_range("start_flow: path has unknown link " + std::to_string(id) +
                              (id >= 0 && id < topology_.link_count()
                                   ? " (added after the ns-3 network was built)"
                                   : ""));
    }
    const Link& link = topology_.link(id);
    if (i == 0) nodes.push_back(link.from);
    if (link.from != nodes.back()) {
      throw std::invalid_argument("start_flow: path is not contiguous at link " +
                                  std::to_string(id));
    }
    if (std::find(nodes.begin(), nodes.end(), link.to) != nodes.end()) {
      throw std::invalid_argument("start_flow: path visits node " + std::to_string(link.to) +
                                  " twice; the ns-3 backend routes by address and cannot");
    }
    nodes.push_back(link.to);
  }
  const auto index = static_cast<std::uint32_t>(routes_.size());
  Route route;
  route.src = nodes.front();
  route.dst = nodes.back();
  // 10.0.0.0/8, two addresses per route.
  route.src_address = ns3::Ipv4Address(0x0A000000u + 2 * index + 1);
  route.dst_address = ns3::Ipv4Address(0x0A000000u + 2 * index + 2);
  std::int64_t tail = 0;
  route.tail.resize(path.links.size());
  for (size_t i = path.links.size(); i-- > 0;) {
    const Link& link = topology_.link(path.links[i]);
    tail += link.latency * kPsPerNs;
    route.tail[i] = tail;
  }
  for (const LinkId id : path.links) {
    const double rate = topology_.link(id).bandwidth;
    route.rate.push_back(rate);
    route.min_packet_time +=
        static_cast<std::int64_t>(std::floor((kMinOverhead + 1) * kPsPerSecond / rate));
  }
  for (size_t i = 0; i < path.links.size(); ++i) {
    const LinkId id = path.links[i];
    network_->routing(nodes[i]).add_route(route.dst_address, route.src_address,
                                          network_->sender(id));
    network_->routing(nodes[i + 1])
        .add_route(route.src_address, route.dst_address, network_->returner(id));
  }
  network_->routing(route.src).add_local(route.src_address);
  network_->routing(route.dst).add_local(route.dst_address);
  routes_.push_back(std::move(route));
  route_index_.emplace(path.links, index);
  return index;
}

void Ns3Model::Impl::configure(ns3::Ptr<ns3::Socket> socket) const {
  socket->SetAttribute("SegmentSize", ns3::UintegerValue(static_cast<uint64_t>(segment_)));
  socket->SetAttribute("InitialCwnd",
                       ns3::UintegerValue(static_cast<uint64_t>(options_.initial_cwnd)));
  socket->SetAttribute("SndBufSize",
                       ns3::UintegerValue(static_cast<uint64_t>(options_.socket_buffer)));
  socket->SetAttribute("RcvBufSize",
                       ns3::UintegerValue(static_cast<uint64_t>(options_.socket_buffer)));
  socket->SetAttribute("DelAckCount", ns3::UintegerValue(2));
  socket->SetAttribute("DelAckTimeout",
                       ns3::TimeValue(ns3::NanoSeconds(options_.delayed_ack_timeout)));
  socket->SetAttribute("MinRto", ns3::TimeValue(ns3::NanoSeconds(options_.min_rto)));
  socket->SetAttribute("ConnTimeout", ns3::TimeValue(ns3::NanoSeconds(options_.min_rto)));
  socket->SetAttribute("ClockGranularity", ns3::TimeValue(ns3::NanoSeconds(1000)));
  socket->SetAttribute("TcpNoDelay", ns3::BooleanValue(true));
  if (options_.tcp == Ns3Tcp::Dctcp) {
    // DCTCP's alpha can only be set before the algorithm meets a socket: a fresh one replaces it.
    ns3::ObjectFactory dctcp;
    dctcp.SetTypeId(ns3_detail::FlooredDctcp::GetTypeId());
    dctcp.Set("DctcpAlphaOnInit", ns3::DoubleValue(options_.dctcp_initial_alpha));
    ns3::DynamicCast<ns3::TcpSocketBase>(socket)->SetCongestionControlAlgorithm(
        dctcp.Create<ns3::TcpCongestionOps>());
  }
}

void Ns3Model::Impl::ensure_listener(NodeId node) {
  ns3::Ptr<ns3::Socket>& listener = listeners_[static_cast<size_t>(node)];
  if (listener) return;
  listener = ns3::Socket::CreateSocket(network_->node(node), ns3::TcpSocketFactory::GetTypeId());
  configure(listener);  // accepted connections are copies of the listener
  listener->Bind(ns3::InetSocketAddress(ns3::Ipv4Address::GetAny(), kListenPort));
  // Receivers only send ACKs (and the SYN-ACK): their own traffic class when prioritized. Bind
  // resets the TOS, so it comes after.
  if (options_.prioritize_acks) listener->SetIpTos(ns3_detail::kAckTos);
  listener->Listen();
  listener->SetAcceptCallback(
      ns3::MakeNullCallback<bool, ns3::Ptr<ns3::Socket>, const ns3::Address&>(),
      ns3::Callback<void, ns3::Ptr<ns3::Socket>, const ns3::Address&>(
          [this](ns3::Ptr<ns3::Socket> socket, const ns3::Address& from) {
            on_accept(socket, from);
          }));
}

std::uint32_t Ns3Model::Impl::open_connection(std::uint32_t route_index) {
  Route& route = routes_[route_index];
  const std::uint32_t port = kFirstPort + static_cast<std::uint32_t>(route.connections.size());
  if (port > 65535) {
    throw std::runtime_error("ns-3 model: more than " + std::to_string(65536 - kFirstPort) +
                             " concurrent connections on one path");
  }
  ensure_listener(route.dst);
  const auto index = static_cast<std::uint32_t>(connections_.size());
  Connection c;
  c.route = route_index;
  c.sender =
      ns3::Socket::CreateSocket(network_->node(route.src), ns3::TcpSocketFactory::GetTypeId());
  configure(c.sender);
  c.sender->Bind(ns3::InetSocketAddress(route.src_address, static_cast<uint16_t>(port)));
  c.sender->SetConnectCallback(
      ns3::Callback<void, ns3::Ptr<ns3::Socket>>([this, index](ns3::Ptr<ns3::Socket>) {
        connections_[index].established = true;
        pump(index);
      }),
      ns3::Callback<void, ns3::Ptr<ns3::Socket>>([this](ns3::Ptr<ns3::Socket>) {
        failure_ = "ns-3 model: a TCP connection could not be established";
      }));
  c.sender->SetSendCallback(ns3::Callback<void, ns3::Ptr<ns3::Socket>, uint32_t>(
      [this, index](ns3::Ptr<ns3::Socket>, uint32_t) { pump(index); }));
  c.sender->SetDataSentCallback(ns3::Callback<void, ns3::Ptr<ns3::Socket>, uint32_t>(
      [this, index](ns3::Ptr<ns3::Socket>, uint32_t bytes) { on_sent(index, bytes); }));
  connection_by_peer_[(std::uint64_t{route.src_address.Get()} << 16) | port] = index;
  connections_.push_back(std::move(c));
  route.connections.push_back(index);
  ++connections_opened_;
  connections_[index].sender->Connect(ns3::InetSocketAddress(route.dst_address, kListenPort));
  return index;
}

void Ns3Model::Impl::on_accept(ns3::Ptr<ns3::Socket> socket, const ns3::Address& from) {
  const ns3::InetSocketAddress peer = ns3::InetSocketAddress::ConvertFrom(from);
  const auto it =
      connection_by_peer_.find((std::uint64_t{peer.GetIpv4().Get()} << 16) | peer.GetPort());
  if (it == connection_by_peer_.end()) return;
  const std::uint32_t index = it->second;
  connections_[index].receiver = socket;
  socket->SetRecvCallback(ns3::Callback<void, ns3::Ptr<ns3::Socket>>(
      [this, index](ns3::Ptr<ns3::Socket>) { on_receive(index); }));
}

void Ns3Model::Impl::on_receive(std::uint32_t index) {
  Connection& c = connections_[index];
  // A segment at a time: asking for more makes ns-3 join the segments, copying their bytes.
  while (ns3::Ptr<ns3::Packet> p = c.receiver->Recv(static_cast<uint32_t>(segment_), 0)) {
    if (p->GetSize() == 0) break;
    c.received += p->GetSize();
  }
  if (c.flow == kNoFlow || c.received < c.assigned) return;
  const FlowId id = c.flow;
  c.flow = kNoFlow;
  c.sending = false;
  c.pacing.Cancel();
  bound_valid_ = false;
  if (--flows_.at(id).pending == 0) complete(id);
}

void Ns3Model::Impl::on_sent(std::uint32_t index, std::uint32_t bytes) {
  Connection& c = connections_[index];
  c.sent += bytes;
  if (c.sent >= c.assigned) c.all_sent_at = now_ps();
  bound_valid_ = false;
}

void Ns3Model::Impl::complete(FlowId id) {
  const Time at = ceil_ns(now_ps());
  done_.push_back(CompletedFlow{id, at});
  completion_[id] = at;
  flows_.erase(id);
  --active_;
}

void Ns3Model::Impl::begin_data(FlowId id) {
  const Flow& flow = flows_.at(id);
  --waiting_;
  ++active_;
  bound_valid_ = false;
  for (const std::uint32_t index : flow.connections) {
    connections_[index].sending = true;
    pump(index);
  }
}

// Writes what the connection may send now: everything the socket takes when uncapped; with a rate
// cap, what a token bucket of one segment, empty at the data start and filled at the rate, holds:
// the bytes written by any time never exceed rate x time since the data start, so the last one is
// written no sooner than data_start + bytes / rate, as the flow model has it. The bucket does not
// grow while the socket is full, so a slowed flow does not catch up later.
void Ns3Model::Impl::pump(std::uint32_t index) {
  Connection& c = connections_[index];
  if (!c.established || !c.sending || c.flow == kNoFlow) return;
  const std::int64_t now = now_ps();
  const bool capped = std::isfinite(c.rate);
  std::int64_t want = c.flow_bytes - c.flow_written;
  if (capped) {
    c.tokens =
        std::min(static_cast<double>(segment_),
                 c.tokens + static_cast<double>(now - c.refilled_at) / kPsPerSecond * c.rate);
    c.refilled_at = now;
    want = std::min(want, static_cast<std::int64_t>(std::floor(c.tokens + 1e-3)));
  }
  bool blocked = false;
  while (want > 0) {
    const std::uint32_t room = c.sender->GetTxAvailable();
    if (room == 0) {
      blocked = true;  // the socket calls back when it has room
      break;
    }
    const auto chunk = static_cast<std::uint32_t>(
        std::min<std::int64_t>({want, std::int64_t{room}, std::int64_t{kWriteChunk}}));
    const int accepted = c.sender->Send(ns3::Create<ns3::Packet>(chunk));
    if (accepted <= 0) {
      blocked = true;
      break;
    }
    c.flow_written += accepted;
    if (capped) c.tokens -= accepted;
    want -= accepted;
  }
  if (capped && !blocked && c.flow_written < c.flow_bytes && !c.pacing.IsRunning()) {
    const double need =
        static_cast<double>(std::min(segment_, c.flow_bytes - c.flow_written)) - c.tokens;
    const auto wait = std::max<std::int64_t>(
        1, static_cast<std::int64_t>(std::ceil(need / c.rate * kPsPerSecond)));
    c.pacing = ns3::Simulator::Schedule(ns3::TimeStep(static_cast<uint64_t>(wait)),
                                        [this, index] { pump(index); });
  }
}

FlowId Ns3Model::Impl::start(Time now, const Path& path, double bytes, double rate_cap,
                             double weight) {
  if (now < now_) {
    throw std::invalid_argument("start_flow at t=" + std::to_string(now) +
                                " ns is before the model's time " + std::to_string(now_) + " ns");
  }
  if (now > kMaxTime)
    throw std::invalid_argument("start_flow: t=" + std::to_string(now) +
                                " ns is too late for ns-3");
  if (!(bytes >= 0) || !std::isfinite(bytes)) {
    throw std::invalid_argument("start_flow: bytes must be finite and not negative, got " +
                                std::to_string(bytes));
  }
  if (!(rate_cap > 0)) {
    throw std::invalid_argument("start_flow: rate cap must be positive, got " +
                                std::to_string(rate_cap));
  }
  if (!(weight > 0) || !std::isfinite(weight)) {
    throw std::invalid_argument("start_flow: weight must be positive and finite, got " +
                                std::to_string(weight));
  }
  if (path.latency < 0) {
    throw std::invalid_argument("start_flow: path latency must not be negative, got " +
                                std::to_string(path.latency));
  }
  const std::int64_t whole = static_cast<std::int64_t>(std::ceil(bytes));
  const std::uint32_t route_index = path.links.empty() || whole == 0 ? 0 : route_of(path);
  run_until(now);
  now_ = now;
  for (const auto* pending : {&done_, &without_data_}) {
    for (const CompletedFlow& f : *pending) {
      if (f.time < now) {
        throw std::logic_error("start_flow at t=" + std::to_string(now) +
                               " ns skips the completion of flow " + std::to_string(f.id) + " at " +
                               std::to_string(f.time) + " ns: call advance_to first");
      }
    }
  }
  bound_valid_ = false;
  const FlowId id = next_id_++;
  completion_.push_back(-1);

  if (path.links.empty() || whole == 0) {
    // Nothing crosses a link: the flow ends after its latency (and its cap, like FlowModel).
    Time end = now + path.latency;
    if (path.links.empty() && std::isfinite(rate_cap)) {
      end += static_cast<Time>(std::ceil(bytes * 1e9 / rate_cap * (1 - 1e-12)));
    }
    without_data_.push_back(CompletedFlow{id, end});
    ++waiting_;
    return id;
  }

  Route& route = routes_[route_index];
  const std::int64_t links_latency = route.tail.front();
  Flow flow;
  flow.route = route_index;
  flow.data_start =
      now * kPsPerNs + std::max<std::int64_t>(0, path.latency * kPsPerNs - links_latency);
  const auto count = static_cast<std::int64_t>(
      std::clamp<double>(std::round(weight), 1.0, static_cast<double>(whole)));
  for (const std::uint32_t index : routes_[route_index].connections) {
    if (static_cast<std::int64_t>(flow.connections.size()) == count) break;
    if (connections_[index].flow == kNoFlow) flow.connections.push_back(index);
  }
  while (static_cast<std::int64_t>(flow.connections.size()) < count) {
    flow.connections.push_back(open_connection(route_index));
  }
  for (size_t i = 0; i < flow.connections.size(); ++i) {
    Connection& c = connections_[flow.connections[i]];
    c.flow = id;
    c.flow_bytes = whole / count + (static_cast<std::int64_t>(i) < whole % count ? 1 : 0);
    c.flow_written = 0;
    c.assigned += c.flow_bytes;
    c.rate = rate_cap / static_cast<double>(count);
    c.data_start = flow.data_start;
    c.tokens = 0;
    c.refilled_at = flow.data_start;
    c.sending = false;
  }
  flow.pending = static_cast<int>(flow.connections.size());
  const std::int64_t delay = flow.data_start - now_ps();
  flows_.emplace(id, std::move(flow));
  ++waiting_;
  ns3::Simulator::Schedule(ns3::TimeStep(static_cast<uint64_t>(delay)),
                           [this, id] { begin_data(id); });
  return id;
}

// Runs every ns-3 event at or before t. Simulator::Stop's event runs after the events already
// queued for t, not after those they schedule for t, so the loop drains t completely.
void Ns3Model::Impl::run_until(Time t) {
  const ns3::Time target = ns3::NanoSeconds(static_cast<uint64_t>(t));
  if (target > ns3::Simulator::Now()) {
    ns3::Simulator::Stop(target - ns3::Simulator::Now());
    ns3::Simulator::Run();
    ++runs_;
  }
  while (const auto next = scheduler_->next_time()) {
    if (*next > target.GetTimeStep()) break;
    ns3::Simulator::Stop(ns3::Time(0));
    ns3::Simulator::Run();
    ++runs_;
  }
  if (!failure_.empty()) throw std::runtime_error(failure_);
}

std::vector<CompletedFlow> Ns3Model::Impl::advance(Time t) {
  if (t < now_) {
    throw std::invalid_argument("advance_to t=" + std::to_string(t) +
                                " ns is before the model's time " + std::to_string(now_) + " ns");
  }
  if (t > kMaxTime)
    throw std::invalid_argument("advance_to: t=" + std::to_string(t) + " ns is too late for ns-3");
  run_until(t);
  now_ = t;
  bound_valid_ = false;
  std::vector<CompletedFlow> out;
  out.swap(done_);
  for (auto it = without_data_.begin(); it != without_data_.end();) {
    if (it->time <= t) {
      out.push_back(*it);
      completion_[it->id] = it->time;
      --waiting_;
      it = without_data_.erase(it);
    } else {
      ++it;
    }
  }
  std::sort(out.begin(), out.end(), [](const CompletedFlow& a, const CompletedFlow& b) {
    return a.time != b.time ? a.time < b.time : a.id < b.id;
  });
  return out;
}

// A time before which the flow cannot deliver its last byte. Bytes TCP has not handed to IP must
// still cross every link of the path: not before `from + wire bytes / rate` at each link, then the
// latency from there on. A rate-capped flow's last byte is not written before bytes / cap.
// Once everything is sent, the last byte left at all_sent_at and is store-and-forwarded by every
// link (or resent later).
std::int64_t Ns3Model::Impl::bound_of(FlowId id, const Flow& flow) const {
  const Route& route = routes_[flow.route];
  const std::int64_t now = now_ps();
  const std::int64_t path_latency = route.tail.front();
  std::int64_t bound = now + 1;
  double unsent_wire = 0;
  for (const std::uint32_t index : flow.connections) {
    const Connection& c = connections_[index];
    if (c.flow != id) continue;  // delivered its share (and may carry a later flow)
    const std::int64_t unsent = c.assigned - c.sent;
    if (unsent <= 0) {
      bound = std::max(bound, c.all_sent_at + path_latency + route.min_packet_time);
      continue;
    }
    const std::int64_t segments = (unsent + segment_ - 1) / segment_;
    unsent_wire += static_cast<double>(unsent + kMinOverhead * segments);
    if (std::isfinite(c.rate)) {
      const auto last_write = c.data_start +
                              static_cast<std::int64_t>(std::floor(
                                  static_cast<double>(c.flow_bytes) / c.rate * kPsPerSecond)) -
                              1;
      bound = std::max(bound, last_write + path_latency + route.min_packet_time);
    }
  }
  if (unsent_wire > 0) {
    const std::int64_t from = std::max(now, flow.data_start);
    for (size_t j = 0; j < route.rate.size(); ++j) {
      const auto serialization =
          static_cast<std::int64_t>(std::floor(unsent_wire / route.rate[j] * kPsPerSecond));
      bound = std::max(bound, from + serialization + route.tail[j]);
    }
  }
  return bound;
}

std::optional<Time> Ns3Model::Impl::next_event() const {
  if (bound_valid_) return bound_;
  std::optional<Time> best;
  const auto consider = [&best](Time t) {
    if (!best || t < *best) best = t;
  };
  for (const CompletedFlow& f : done_) consider(f.time);
  for (const CompletedFlow& f : without_data_) consider(f.time);
  if (!flows_.empty()) {
    std::int64_t earliest = std::numeric_limits<std::int64_t>::max();
    for (const auto& [id, flow] : flows_) earliest = std::min(earliest, bound_of(id, flow));
    // No delivery happens before ns-3's next event.
    if (const auto next = scheduler_->next_time()) earliest = std::max(earliest, *next);
    consider(std::max(ceil_ns(earliest), now_ + 1));
  }
  bound_ = best;
  bound_valid_ = true;
  return best;
}

double Ns3Model::Impl::utilization(LinkId id) const {
  if (id < 0 || id >= network_->link_count()) return 0;
  const LinkBusy& busy = network_->busy(id);
  Sample& sample = samples_[static_cast<size_t>(id)];
  if (busy.packets == 0) return 0;
  const std::int64_t now = now_ps();
  if (!sample.seen) {
    sample.seen = true;
    sample.time = std::min(now, busy.first);
    sample.busy = busy.busy_until(sample.time);
  }
  if (now <= sample.time) return sample.value;
  const std::int64_t total = busy.busy_until(now);
  sample.value = std::clamp(
      static_cast<double>(total - sample.busy) / static_cast<double>(now - sample.time), 0.0, 1.0);
  sample.time = now;
  sample.busy = total;
  return sample.value;
}

Ns3Model::Stats Ns3Model::Impl::stats() const {
  Stats s;
  s.events = ns3::Simulator::GetEventCount();
  s.transmissions = network_->transmissions();
  s.connections = connections_opened_;
  s.drops = network_->drops();
  s.ecn_marks = network_->ecn_marks();
  s.runs = runs_;
  return s;
}

// ---- Ns3Model ----

Ns3Model::Ns3Model(const Topology& topology, const Ns3Options& options)
    : impl_(std::make_unique<Impl>(topology, options)) {}

Ns3Model::~Ns3Model() = default;

FlowId Ns3Model::start_flow(Time now, const Path& path, double bytes, double rate_cap,
                            double weight) {
  return impl_->start(now, path, bytes, rate_cap, weight);
}

std::optional<Time> Ns3Model::next_event_time() const { return impl_->next_event(); }

std::vector<FlowId> Ns3Model::advance_to(Time t) {
  std::vector<FlowId> ids;
  for (const CompletedFlow& done : impl_->advance(t)) ids.push_back(done.id);
  return ids;
}

std::vector<CompletedFlow> Ns3Model::advance_to_with_times(Time t) { return impl_->advance(t); }

double Ns3Model::link_utilization(LinkId id) const { return impl_->utilization(id); }

int Ns3Model::active_flow_count() const { return impl_->active_; }

int Ns3Model::waiting_flow_count() const { return impl_->waiting_; }

Time Ns3Model::now() const { return impl_->now_; }

std::optional<Time> Ns3Model::completion_time(FlowId id) const {
  if (id >= impl_->completion_.size() || impl_->completion_[id] < 0) return std::nullopt;
  return impl_->completion_[id];
}

Ns3Model::Stats Ns3Model::stats() const { return impl_->stats(); }

}  // namespace seer::net
