#include "session_server.h"

#include <cxxabi.h>
#include <malloc.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "seer/runtime/kernel_db.h"
#include "seer/runtime/report.h"
#include "seer/simcore/nccl/env.h"
#include "triton_kernels.h"

namespace seer::rt {
namespace {

using sim::kNever;
using sim::Time;

wire::GpuProperties gpu_properties(const sim::Engine& engine, const ClusterSpec& cluster, int gpu) {
  const sim::GpuSpec& s = engine.gpu_spec(gpu);
  wire::GpuProperties p;
  p.set_name(s.marketing_name);
  p.set_sm_count(s.sm_count);
  p.set_cc_major(s.cc_major);
  p.set_cc_minor(s.cc_minor);
  p.set_memory_bytes(s.memory_bytes);
  p.set_context_reserve_bytes(s.context_reserve_bytes);
  p.set_clock_khz(s.clock_khz);
  p.set_memory_clock_khz(s.memory_clock_khz);
  p.set_memory_bus_width(s.memory_bus_width);
  p.set_l2_bytes(s.l2_bytes);
  p.set_max_threads_per_sm(s.max_threads_per_sm);
  p.set_max_blocks_per_sm(s.max_blocks_per_sm);
  p.set_shared_mem_per_sm(s.shared_mem_per_sm);
  p.set_shared_mem_per_block_optin(s.shared_mem_per_block_optin);
  p.set_regs_per_sm(s.regs_per_sm);
  p.set_node(gpu / cluster.gpus_per_node);
  p.set_local_index(gpu % cluster.gpus_per_node);
  p.set_pci_bus_id(0x18 + (gpu % cluster.gpus_per_node) * 0x10);
  return p;
}

wire::HostCosts host_costs(const sim::HostCosts& c) {
  wire::HostCosts w;
  w.set_launch(c.launch);
  w.set_memcpy_async(c.memcpy_async);
  w.set_memcpy_sync(c.memcpy_sync);
  w.set_event_record(c.event_record);
  w.set_stream_wait(c.stream_wait);
  w.set_sync_return(c.sync_return);
  w.set_query(c.query);
  w.set_malloc(c.malloc);
  w.set_free(c.free);
  w.set_other_call(c.other_call);
  w.set_clock_read(c.clock_read);
  w.set_cpu_scale(c.cpu_scale);
  w.set_framework_op(c.framework_op);
  return w;
}

sim::OpKind copy_kind(wire::CopyKind k) {
  switch (k) {
    case wire::COPY_H2D:
      return sim::OpKind::kCopyH2D;
    case wire::COPY_D2H:
      return sim::OpKind::kCopyD2H;
    case wire::COPY_D2D:
      return sim::OpKind::kCopyD2D;
    case wire::COPY_H2H:
      return sim::OpKind::kCopyH2H;
    case wire::COPY_PEER:
      return sim::OpKind::kCopyPeer;
    case wire::COPY_MEMSET:
      return sim::OpKind::kMemset;
    default:
      return sim::OpKind::kCopyH2H;
  }
}

// Kernel names arrive mangled (as registered by the program); reports show them demangled.
std::string demangle(const std::string& name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !d) return name;
  std::string out(d);
  std::free(d);
  return out;
}

// How a library call appears in the kernel table: the API and its element type.
std::string library_label(const wire::LibraryCall& l) {
  static const char* const kTypes[] = {"f64", "f32", "tf32", "f16", "bf16", "f8", "i8"};
  const int d = l.dtype();
  return l.api() + " [" + (d >= 0 && d < 7 ? kTypes[d] : "?") + "]";
}

bool is_sync_request(const wire::Request& r) {
  return r.body_case() == wire::Request::kStreamSync ||
         r.body_case() == wire::Request::kEventSync || r.body_case() == wire::Request::kDeviceSync;
}

std::string describe(const wire::Request& r) {
  switch (r.body_case()) {
    case wire::Request::kStreamSync:
      return "cudaStreamSynchronize";
    case wire::Request::kEventSync:
      return "cudaEventSynchronize";
    case wire::Request::kDeviceSync:
      return "cudaDeviceSynchronize";
    case wire::Request::kStreamQuery:
      return "cudaStreamQuery";
    case wire::Request::kEventQuery:
      return "cudaEventQuery";
    case wire::Request::kResume:
      return "resume";
    case wire::Request::kCommInit:
      return "ncclCommInitRank/ncclCommSplit";
    case wire::Request::kSimulate:
      return "ncclGroupSimulateEnd";
    case wire::Request::kPayloadWait:
      return "a read of a collective's output (waiting for its data)";
    case wire::Request::kGoodbye:
      return "exit";
    default:
      return "request";
  }
}

int64_t payload_limit(int64_t configured) {
  if (configured >= 0) return configured;
  if (const char* v = std::getenv("SEER_PAYLOAD_MAX_BYTES"); v && *v) {
    char* end = nullptr;
    const long long n = std::strtoll(v, &end, 10);
    if (end != v && n >= 0) return n;
  }
  return int64_t{1} << 20;
}

}  // namespace

SessionServer::SessionServer(SessionOptions options)
    : options_(std::move(options)), engine_(*this) {
  payload_max_bytes_ = payload_limit(options_.payload_max_bytes);
  const ClusterSpec& c = options_.cluster;
  if (!options_.host_cpu_plan) {
    options_.host_cpu_plan = plan_host_cpu(c.host_cpu, options_.host_time == HostTime::kMeasured);
  }
  apply(*options_.host_cpu_plan, options_.costs);
  for (int n = 0; n < c.nodes; ++n) {
    for (int g = 0; g < c.gpus_per_node; ++g) engine_.add_gpu(c.gpu, n, c.links);
  }
  if (options_.nccl_model == "nccl") {
    sim::NetworkConfig net;
    net.shape = c.shape;
    net.ecmp = c.ecmp;
    net.adaptive_routing = c.adaptive_routing;
    net.model = c.network;
    net.payload_efficiency = c.payload_efficiency;
    net.nccl_version = options_.nccl_version;
    net.env = sim::nccl::parse_env([](const char* name) { return std::getenv(name); });
    for (const std::string& e : net.env.errors) problems_.push_back("NCCL environment: " + e);
    net.gpu = c.gpu;
    net.record_link_utilisation = options_.record_link_utilisation;
    engine_.set_network(std::move(net));
  }
  if (!options_.kernel_db.empty()) {
    auto db = std::make_shared<const KernelDb>(KernelDb::load(options_.kernel_db));
    engine_.set_kernel_lookup([db](const sim::GpuSpec& gpu, const std::string& name,
                                   const sim::LaunchGeometry& g, const std::string& params,
                                   std::span<const uint64_t> sizes) -> std::optional<sim::Time> {
      return db->lookup(gpu, name, g, params, sizes);
    });
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/seer-XXXXXX";
  if (!mkdtemp(templ.data())) {
    throw std::runtime_error("cannot create a private session directory: " +
                             std::string(std::strerror(errno)));
  }
  dir_ = templ;
  socket_path_ = dir_ + "/session.sock";
  listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (socket_path_.size() >= sizeof(addr.sun_path)) {
    throw std::runtime_error("session socket path too long: " + socket_path_);
  }
  std::strcpy(addr.sun_path, socket_path_.c_str());
  if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listen_fd_, 1024) != 0) {
    throw std::runtime_error("cannot listen on " + socket_path_ + ": " + std::strerror(errno));
  }
  if (options_.listen) listen_tcp(*options_.listen);
  started_ = last_progress_ = std::chrono::steady_clock::now();
}

SessionServer::~SessionServer() {
  for (auto& c : clients_) {
    if (c->fd >= 0) ::close(c->fd);
  }
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (tcp_fd_ >= 0) ::close(tcp_fd_);
  for (auto& p : pending_) {
    if (p->fd >= 0) ::close(p->fd);
  }
  for (auto& h : hosts_) {
    if (h->fd >= 0) ::close(h->fd);
  }
  ::unlink(socket_path_.c_str());
  ::rmdir(dir_.c_str());
}

int SessionServer::live_clients() const {
  int n = 0;
  for (const auto& c : clients_) n += c->gone ? 0 : 1;
  return n;
}

void SessionServer::serve(const std::function<bool()>& keep_going) {
  // Collective payloads (up to 1 MiB per rank, many ranks) are allocated and freed many times a
  // second. glibc would map each large block afresh and trim freed heap at once, so every copy
  // would first fault in zeroed pages: keep them in the heap instead.
  ::mallopt(M_MMAP_THRESHOLD, 32 << 20);
  ::mallopt(M_TRIM_THRESHOLD, 512 << 20);
  std::vector<pollfd> fds;
  while (true) {
    const bool more = keep_going();
    if (!more && live_clients() == 0) break;
    fds.clear();
    fds.push_back({listen_fd_, POLLIN, 0});
    std::vector<Client*> polled;
    for (auto& c : clients_) {
      if (c->gone) continue;
      const bool backlog = c->outbox_sent < c->outbox.size();
      fds.push_back({c->fd, static_cast<short>(POLLIN | (backlog ? POLLOUT : 0)), 0});
      polled.push_back(c.get());
    }
    // TCP: the listener, connections still authenticating, hosts' control connections.
    const size_t remote_begin = fds.size();
    std::vector<PendingRemote*> pending;
    std::vector<RemoteHost*> hosts;
    if (tcp_fd_ >= 0) {
      fds.push_back({tcp_fd_, POLLIN, 0});
      for (auto& p : pending_) {
        fds.push_back({p->fd, POLLIN, 0});
        pending.push_back(p.get());
      }
      for (auto& h : hosts_) {
        if (h->gone) continue;
        fds.push_back({h->fd, POLLIN, 0});
        hosts.push_back(h.get());
      }
    }
    const int ready = ::poll(fds.data(), fds.size(), more ? 5 : 50);
    if (ready < 0 && errno != EINTR) throw std::runtime_error("poll failed");
    if (ready > 0) {
      if (fds[0].revents & POLLIN) accept_clients();
      for (size_t i = 1; i < remote_begin; ++i) {
        if (fds[i].revents & POLLOUT) flush_outbox(*polled[i - 1]);
        if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) read_client(*polled[i - 1]);
      }
      if (tcp_fd_ >= 0) {
        constexpr short kReadable = POLLIN | POLLHUP | POLLERR;
        for (size_t i = 0; i < pending.size(); ++i) {
          if (fds[remote_begin + 1 + i].revents & kReadable) read_pending(*pending[i]);
        }
        for (size_t i = 0; i < hosts.size(); ++i) {
          if (fds[remote_begin + 1 + pending.size() + i].revents & kReadable) read_host(*hosts[i]);
        }
        if (fds[remote_begin].revents & POLLIN) accept_remote();
      }
    }
    drop_silent_clients();
    if (tcp_fd_ >= 0) drop_unauthenticated();
    advance();
    check_stuck();
    if (options_.progress) show_progress();
    flush_outboxes();
    if (aborted_) break;
  }
  if (progress_shown_) std::fprintf(stderr, "\r\033[K");
  wall_seconds_ =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

void SessionServer::accept_clients() {
  while (true) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) return;
    auto c = std::make_unique<Client>();
    c->fd = fd;
    // Names the process in messages even when it never says hello (the hello's pid replaces it).
    ucred peer{};
    socklen_t peer_size = sizeof peer;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &peer_size) == 0) c->info.pid = peer.pid;
    c->index = static_cast<int>(clients_.size());
    c->connected = std::chrono::steady_clock::now();
    clients_.push_back(std::move(c));
  }
}

void SessionServer::drop_silent_clients() {
  const auto now = std::chrono::steady_clock::now();
  for (auto& c : clients_) {
    if (c->gone || c->welcomed) continue;
    if (std::chrono::duration<double>(now - c->connected).count() < options_.hello_timeout_s) {
      continue;
    }
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g", options_.hello_timeout_s);
    drop(*c, std::string("connected but sent no hello within ") + limit + " s");
  }
}

void SessionServer::read_client(Client& c) {
  char buf[65536];
  bool eof = false;
  while (true) {
    const ssize_t n = ::read(c.fd, buf, sizeof buf);
    if (n > 0) {
      c.reader.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    eof = true;
    break;
  }
  bool corrupt = false;
  while (!c.gone) {
    const std::optional<std::string_view> frame = c.reader.peek(corrupt);
    if (!frame) break;
    handle_message(c, *frame);
    c.reader.pop();
  }
  if (corrupt && !c.gone) drop(c, "sent a malformed frame header");
  if (eof && !c.gone) {
    if (c.reader.pending() > 0) {
      problems_.push_back("dropped the connection of process " + std::to_string(c.info.pid) +
                          ": it closed the connection in the middle of a message (" +
                          std::to_string(c.reader.pending()) + " bytes of an incomplete frame)");
      std::fprintf(stderr, "seer: %s\n", problems_.back().c_str());
    }
    c.gone = true;
    ::close(c.fd);
    c.fd = -1;
    const bool ranked = c.info.rank >= 0 && c.process == c.info.rank;
    count_rank(c);
    // A helper process that only asked questions (a compile worker, a launcher) may be killed.
    if (c.welcomed && !c.info.said_goodbye && (ranked || c.submitted)) {
      abort_run("process " + std::to_string(c.info.pid) +
                (c.info.rank >= 0 ? " (rank " + std::to_string(c.info.rank) + ")" : "") +
                " died without exiting normally (crashed or killed)" +
                (c.last_call.empty() ? "" : "; its last CUDA/NCCL call was " + c.last_call) +
                "; stopping the other ranks");
    }
  }
  last_progress_ = std::chrono::steady_clock::now();
}

void SessionServer::drop(Client& c, const std::string& why) {
  problems_.push_back("dropped the connection of process " + std::to_string(c.info.pid) + ": " +
                      why);
  std::fprintf(stderr, "seer: %s\n", problems_.back().c_str());
  c.gone = true;
  count_rank(c);
  if (c.fd >= 0) ::close(c.fd);
  c.fd = -1;
}

void SessionServer::handle_message(Client& c, std::string_view payload) {
  parse_arena_.Reset();
  wire::ClientMessage& m =
      *google::protobuf::Arena::CreateMessage<wire::ClientMessage>(&parse_arena_);
  if (!m.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) {
    drop(c, "sent a message that is not a valid ClientMessage");
    return;
  }
  switch (m.body_case()) {
    case wire::ClientMessage::kHello:
      if (c.welcomed) {
        drop(c, "said hello twice");
        return;
      }
      handle_hello(c, m.hello());
      return;
    case wire::ClientMessage::kBatch:
      if (!c.welcomed) {
        drop(c, "sent records before hello");
        return;
      }
      handle_batch(c, *m.mutable_batch());
      return;
    default:
      drop(c, "sent a message of no known type (empty, or not Seer's wire protocol)");
  }
}

int SessionServer::assign_process_key(int rank) {
  if (rank >= 0 && !used_keys_.count(rank)) {
    used_keys_[rank] = 1;
    return rank;
  }
  const int key = 1000000 + next_anonymous_++;
  used_keys_[key] = 1;
  return key;
}

void SessionServer::handle_hello(Client& c, const wire::Hello& hello) {
  c.welcomed = true;
  c.process = assign_process_key(hello.rank());
  c.info.process = c.process;
  c.info.rank = hello.rank();
  c.info.pid = hello.pid();
  c.info.program = hello.program();
  if (hello.world_size() > expected_ranks_) expected_ranks_ = hello.world_size();

  wire::SessionMessage m;
  wire::Welcome* w = m.mutable_welcome();
  w->set_process_id(c.process);
  w->set_rank(hello.rank());
  // Every process sees the whole cluster, as in a one-host run where rank r drives device r.
  // On another host, LOCAL_RANK counts from 0 again: the list is rotated so that its device
  // LOCAL_RANK is the GPU the same rank drives in a one-host run (and the same calls cost the
  // same, so both runs give the same summary).
  const int count = engine_.gpu_count();
  if (c.remote && hello.rank() >= 0 && hello.local_rank() >= 0 &&
      hello.local_rank() <= hello.rank()) {
    c.first_gpu = hello.rank() - hello.local_rank();
    if (hello.rank() >= count) {
      w->set_error("rank " + std::to_string(hello.rank()) + " would drive GPU " +
                   std::to_string(hello.rank()) + ", but the cluster " + options_.cluster.name +
                   " has " + std::to_string(count) + " GPUs (give seer serve a larger --cluster)");
    }
    c.first_gpu %= count;
  }
  w->set_first_gpu(c.first_gpu);
  w->set_gpu_count(count);
  for (int d = 0; d < count; ++d) {
    *w->add_gpus() = gpu_properties(engine_, options_.cluster, gpu_of(c, d));
  }
  w->set_host_time(options_.host_time == HostTime::kModeled ? wire::HOST_TIME_MODELED
                                                            : wire::HOST_TIME_MEASURED);
  *w->mutable_costs() = host_costs(options_.costs);
  w->set_payload_max_bytes(payload_max_bytes_);
  w->set_park_after_ms(options_.host_time == HostTime::kModeled ? options_.park_after_ms_modeled
                                                                : options_.park_after_ms);
  send(c, m);
}

void SessionServer::count_rank(Client& c) {
  if (c.counted) return;
  c.counted = true;
  if (c.info.rank >= 0 && c.process == c.info.rank) ++joined_ranks_;
}

void SessionServer::handle_batch(Client& c, wire::Batch& batch) {
  // A rank joins the simulation with its first device work; until then it only asked questions
  // (a launcher counting devices does the same) and the session waits for it.
  if (batch.records_size() > 0) {
    c.submitted = true;
    c.info.submitted_work = true;
    count_rank(c);
  }
  for (wire::Record& r : *batch.mutable_records()) {
    engine_.set_order_key((uint64_t{r.thread()} << 32) | c.thread_records[r.thread()]++);
    apply_record(c, r);
  }
  engine_.set_order_key(std::nullopt);
  records_ += static_cast<uint64_t>(batch.records_size());
  c.promise = batch.promise();
  c.answers_received = batch.answers_received();
  c.all_blocked = batch.all_blocked();
  c.stalled = batch.stalled();
  while (!c.unacked.empty() && c.unacked.front().first <= c.answers_received) c.unacked.pop_front();
  if (batch.has_request()) handle_request(c, batch.request());
}

void SessionServer::apply_record(Client& c, wire::Record& r) {
  const int p = c.process;
  const Time t = r.t();
  c.info.last_time = std::max(c.info.last_time, t);
  bool ok = true;
  switch (r.body_case()) {
    case wire::Record::kRegisterKernel: {
      const wire::RegisterKernel& k = r.register_kernel();
      const uint32_t id = engine_.intern_kernel(demangle(k.name()));
      c.kernels[k.func_id()] = id;
      if (k.has_triton()) {
        c.triton_kernels[k.func_id()] = engine_.add_triton_kernel(triton_kernel_of(k.triton()));
      }
      break;
    }
    case wire::Record::kLaunch: {
      const wire::Launch& l = r.launch();
      sim::OpDesc op;
      op.kind = sim::OpKind::kKernel;
      auto it = c.kernels.find(l.func_id());
      op.kernel =
          it != c.kernels.end() ? it->second : engine_.intern_kernel("<unregistered kernel>");
      op.geometry = {l.gx(), l.gy(), l.gz(), l.bx(), l.by(), l.bz(), l.shmem()};
      if (auto tk = c.triton_kernels.find(l.func_id()); tk != c.triton_kernels.end()) {
        op.triton = tk->second;
      }
      op.nsizes = static_cast<uint8_t>(std::min(l.size_args_size(), sim::OpDesc::kMaxSizes));
      for (int i = 0; i < op.nsizes; ++i) op.sizes[i] = l.size_args(i);
      ok = engine_.submit(p, l.stream(), t, op);
      break;
    }
    case wire::Record::kCopy: {
      const wire::Copy& cp = r.copy();
      sim::OpDesc op;
      op.kind = copy_kind(cp.kind());
      op.bytes = cp.bytes();
      op.pinned = cp.pinned();
      op.peer_gpu = cp.kind() == wire::COPY_PEER ? gpu_of(c, cp.dst_gpu()) : -1;
      ok = engine_.submit(p, cp.stream(), t, op);
      break;
    }
    case wire::Record::kEventRecord:
      ok = engine_.record_event(p, r.event_record().event(), r.event_record().stream(), t);
      break;
    case wire::Record::kStreamWaitEvent:
      ok = engine_.stream_wait_event(p, r.stream_wait_event().stream(),
                                     r.stream_wait_event().event(), t);
      break;
    case wire::Record::kStreamCreate: {
      const wire::StreamCreate& s = r.stream_create();
      ok = engine_.create_stream(p, s.stream(), gpu_of(c, s.gpu()), s.blocking(),
                                 s.legacy_default());
      break;
    }
    case wire::Record::kCollective: {
      wire::Collective& col = *r.mutable_collective();
      std::vector<sim::CollPart> parts;
      for (const wire::CollPart& w : col.parts()) {
        sim::CollPart p;
        p.kind = static_cast<sim::CollKind>(w.kind());
        p.count = w.count();
        p.type_bytes = w.type_bytes();
        p.datatype = w.datatype();
        p.redop = w.redop();
        p.root = w.root();
        parts.push_back(p);
      }
      ok = engine_.submit_collective(p, col.stream(), t, col.comm(), col.rank(), parts);
      if (ok) exchange_payloads(c, col);
      if (ok && parts[0].p2p()) {
        CollectiveCall call{p, col.stream(), col.comm(), col.rank(), {}};
        for (const sim::CollPart& part : parts) {
          call.p2p_parts.emplace_back(static_cast<int>(part.kind), part.root);
        }
        collective_calls_.push_back(std::move(call));
      }
      c.last_call =
          parts.empty() ? "nccl" : std::string("nccl") + sim::coll_kind_name(parts[0].kind);
      break;
    }
    case wire::Record::kLibrary: {
      const wire::LibraryCall& l = r.library();
      sim::OpDesc op;
      op.kind = sim::OpKind::kLibrary;
      op.gemm = l.gemm();
      op.m = l.m();
      op.n = l.n();
      op.k = l.k();
      op.batch = std::max<int64_t>(1, l.batch());
      op.dtype = std::clamp(l.dtype(), 0, 6);
      // compute 0 (f64) only counts for f64 data: proto3 cannot tell it from "not set".
      op.compute = l.compute() > 0 && l.compute() <= 6 ? l.compute() : (l.dtype() == 0 ? 0 : -1);
      op.bytes = static_cast<uint64_t>(std::max(0.0, l.bytes()));
      op.kernel = engine_.intern_kernel(library_label(l));
      ok = engine_.submit(p, l.stream(), t, op);
      break;
    }
    case wire::Record::kNvtx: {
      const wire::Nvtx& n = r.nvtx();
      if (!wire::Nvtx::Kind_IsValid(n.kind())) {
        ok = false;
        break;
      }
      NvtxEvent e;
      e.process = p;
      e.thread = r.thread();
      e.t = t;
      e.kind = static_cast<NvtxEvent::Kind>(n.kind());
      e.message = n.message();
      e.domain = n.domain();
      e.id = n.id();
      nvtx_.push_back(std::move(e));
      break;
    }
    case wire::Record::kAlloc:
      engine_.note_alloc(gpu_of(c, r.alloc().gpu()), r.alloc().bytes());
      break;
    case wire::Record::kFree:
      engine_.note_free(gpu_of(c, r.free().gpu()), r.free().bytes());
      break;
    default:
      ok = false;
  }
  activity_.on_record(p, r, ok);
  if (!ok) {
    // One line per process, however many records: a program that lost a stream sends many.
    if (c.ignored_records++ == 0) {
      c.ignored_problem = problems_.size();
      problems_.emplace_back();
    }
    problems_[c.ignored_problem] =
        "process " + std::to_string(c.info.pid) + " sent " +
        (c.ignored_records == 1 ? std::string("a record")
                                : std::to_string(c.ignored_records) + " records") +
        " naming an unknown stream, GPU or kind (ignored)";
  }
}

void SessionServer::handle_request(Client& c, const wire::Request& r) {
  ++requests_;
  c.last_call = describe(r);
  if (r.body_case() != wire::Request::kGoodbye)
    c.info.last_time = std::max(c.info.last_time, r.t());
  if (r.body_case() == wire::Request::kGoodbye) {
    c.info.said_goodbye = true;
    count_rank(c);  // a rank that ends without device work must not hold the others back
    return;
  }
  if (r.body_case() == wire::Request::kCommInit) {
    handle_comm_init(c, r);
    return;
  }
  if (r.body_case() == wire::Request::kSimulate) {
    handle_simulate(c, r);
    return;
  }
  if (r.body_case() == wire::Request::kPayloadWait) {
    handle_payload_wait(c, r);
    return;
  }
  if (r.body_case() == wire::Request::kActivity) {
    handle_activity(c, r);
    return;
  }
  if (r.body_case() == wire::Request::kResume) {
    answer(c, r.id(), std::max(r.t(), engine_.now()), true, engine_.now());
    return;
  }
  const uint64_t token = next_token_++;
  waits_[token] = PendingRequest{c.index, r};
  ++c.pending_requests;
  if (r.at_clock() && (r.body_case() == wire::Request::kStreamQuery ||
                       r.body_case() == wire::Request::kEventQuery)) {
    queries_.insert(token);
  }
  switch (r.body_case()) {
    case wire::Request::kStreamSync:
    case wire::Request::kStreamQuery: {
      const uint64_t stream =
          r.body_case() == wire::Request::kStreamSync ? r.stream_sync() : r.stream_query();
      if (!engine_.wait_stream(c.process, stream, token)) on_wait_done(token, 0);
      break;
    }
    case wire::Request::kEventSync:
      engine_.wait_event(c.process, r.event_sync(), token);
      break;
    case wire::Request::kEventQuery:
      engine_.wait_event(c.process, r.event_query(), token);
      break;
    case wire::Request::kDeviceSync:
      engine_.wait_gpu(c.process, gpu_of(c, r.device_sync()), token);
      break;
    default:
      waits_.erase(token);
      --c.pending_requests;
      drop(c, "sent an unknown request");
      return;
  }
  // An observer's query (a watchdog polling events) is answered from what is simulated so far:
  // waiting for the work could deadlock, for the observer may hold a lock that the threads
  // submitting that work need (c10d's work queue; interposer/client/THREADS.md, "Queries").
  if (r.observer() && queries_.count(token) != 0 && waits_.count(token) != 0) {
    waits_.erase(token);
    queries_.erase(token);
    --c.pending_requests;
    answer(c, r.id(), r.t(), false, sim::kNever);
  }
}

void SessionServer::on_wait_done(uint64_t token, Time completion) {
  auto it = waits_.find(token);
  if (it == waits_.end()) return;
  const PendingRequest pr = it->second;
  waits_.erase(it);
  queries_.erase(token);
  Client& c = *clients_[pr.client];
  --c.pending_requests;
  if (c.gone) return;
  const wire::Request& r = pr.request;
  if (is_sync_request(r)) {
    const Time t = completion > r.t() ? completion + options_.costs.sync_return : r.t();
    if (t > r.t()) host_waits_.push_back({c.process, r.thread(), r.t(), t, describe(r)});
    answer(c, r.id(), t, true, completion);
  } else {
    answer(c, r.id(), r.t(), completion <= r.t(), completion);
  }
}

// CUPTI replacement: the times the tracker has, at once (the client synchronized first).
void SessionServer::handle_activity(Client& c, const wire::Request& r) {
  wire::SessionMessage m;
  wire::Answer* a = m.mutable_answer();
  a->set_id(r.id());
  a->set_t(r.t());
  a->set_ready(true);
  for (wire::OpTime& t : activity_.query(c.process, r.activity().track(), engine_)) {
    *a->add_op_times() = std::move(t);
  }
  c.info.last_time = std::max(c.info.last_time, r.t());
  ++c.answers_sent;
  c.unacked.emplace_back(c.answers_sent, r.t());
  send(c, m);
}

void SessionServer::answer(Client& c, uint64_t id, Time t, bool ready, Time completion) {
  c.info.last_time = std::max(c.info.last_time, t);
  wire::SessionMessage m;
  wire::Answer* a = m.mutable_answer();
  a->set_id(id);
  a->set_t(t);
  a->set_ready(ready);
  a->set_completion(completion);
  ++c.answers_sent;
  c.unacked.emplace_back(c.answers_sent, t);
  send(c, m);
}

void SessionServer::send(Client& c, const wire::SessionMessage& m) {
  if (c.gone) return;
  wire::append_frame_header(c.outbox, static_cast<uint32_t>(m.ByteSizeLong()));
  m.AppendToString(&c.outbox);
  if (!c.unflushed) unflushed_.push_back(&c);
  c.unflushed = true;
}

// Everything one round of serve() produced (every ready client's messages, then the advance)
// goes out in one write per client: a collective's results, one per receiving rank and part,
// would otherwise cost each client a wakeup per message, or per peer of an all-to-all.
void SessionServer::flush_outboxes() {
  for (Client* c : unflushed_) {
    c->unflushed = false;
    flush_outbox(*c);
  }
  unflushed_.clear();
}

// Writes what the client's socket takes now; serve() polls for room for the rest.
void SessionServer::flush_outbox(Client& c) {
  while (!c.gone && c.outbox_sent < c.outbox.size()) {
    const ssize_t n = ::send(c.fd, c.outbox.data() + c.outbox_sent, c.outbox.size() - c.outbox_sent,
                             MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      c.outbox_sent += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    c.gone = true;
    return;
  }
  c.outbox.clear();
  c.outbox_sent = 0;
}

Time SessionServer::effective_promise(const Client& c, bool payload_waits_released) const {
  if (c.gone || c.info.said_goodbye) return kNever;
  if (!c.welcomed) return 0;
  Time p = c.all_blocked ? kNever : c.promise;
  for (const auto& [n, t] : c.unacked) p = std::min(p, t);
  if (!payload_waits_released) {
    for (const PayloadWaitRequest& w : payload_waits_) {
      if (w.client == c.index) p = std::min(p, w.t);
    }
  }
  return p;
}

// A thread waiting for a collective's bytes resumes at its own clock, so it holds the safe time
// back, unless every rank is blocked: then no rank can submit the missing collective until some
// simulated work completes, so that work is committed, and the waiting thread resumes no
// earlier than it (PAYLOAD.md, "Waiting for a result").
Time SessionServer::safe_time() const {
  if (joined_ranks_ < expected_ranks_) return 0;
  const bool released = !payload_waits_.empty() && everyone_blocked();
  Time safe = kNever;
  for (const auto& c : clients_) safe = std::min(safe, effective_promise(*c, released));
  return safe;
}

void SessionServer::advance() {
  check_engine_errors();
  while (!aborted_) {
    auto t = engine_.next_event_time();
    if (!t || *t >= safe_time()) break;
    engine_.step();
    check_engine_errors();
    last_progress_ = std::chrono::steady_clock::now();
    hang_reported_ = false;
  }
  answer_due_queries();
  if (aborted_ || engine_.next_event_time() || !everyone_blocked()) return;
  if (!payload_waits_.empty()) {
    abandon_payload_waits();
  } else if (!waits_.empty() || !comm_requests_.empty()) {
    report_deadlock("");
  }
}

// A query asks whether work is complete at the thread's clock. The querying thread stays in its
// process' promise (it resumes at its own clock either way), so the engine stops short of that
// clock; once nothing before it is left, work not complete by then is not ready. Answering only at
// completion would let the engine run past the thread, and its next work would start late.
void SessionServer::answer_due_queries() {
  if (queries_.empty()) return;
  const std::optional<Time> next = engine_.next_event_time();
  // Every process must have promised the query's time too: work they submit before it (a
  // collective's other ranks, a kernel beside the queried one) can still change its completion.
  const Time safe = safe_time();
  for (auto it = queries_.begin(); it != queries_.end();) {
    auto w = waits_.find(*it);
    if (w == waits_.end()) {
      it = queries_.erase(it);
      continue;
    }
    const PendingRequest pr = w->second;
    if ((next && *next < pr.request.t()) || safe < pr.request.t()) {
      ++it;
      continue;
    }
    waits_.erase(w);
    it = queries_.erase(it);
    Client& c = *clients_[pr.client];
    --c.pending_requests;
    if (!c.gone) answer(c, pr.request.id(), pr.request.t(), false, sim::kNever);
  }
}

bool SessionServer::everyone_blocked() const {
  if (joined_ranks_ < expected_ranks_) return false;
  for (const auto& c : clients_) {
    if (c->gone || c->info.said_goodbye || !c->welcomed) continue;
    if (!(c->all_blocked || c->stalled) || c->answers_received != c->answers_sent) return false;
  }
  return true;
}

void SessionServer::check_engine_errors() {
  for (const std::string& e : engine_.take_errors()) abort_run(e);
}

void SessionServer::abort_run(const std::string& why) {
  problems_.push_back(why);
  wire::SessionMessage m;
  m.mutable_fatal()->set_message(why);
  for (auto& c : clients_) {
    if (!c->gone) send(*c, m);
  }
  const std::string fatal = frame_of(m);
  for (auto& h : hosts_) {
    if (!h->gone) ::send(h->fd, fatal.data(), fatal.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  }
  aborted_ = true;
}

namespace {

std::vector<int> devices_of(const wire::CommInitGroup& g) {
  std::vector<int> devices;
  for (const wire::CommInit& init : g.inits()) devices.push_back(init.gpu());
  for (const wire::CommSplit& split : g.splits()) devices.push_back(split.gpu());
  return devices;
}

}  // namespace

void SessionServer::handle_comm_init(Client& c, const wire::Request& r) {
  const wire::CommInitGroup& g = r.comm_init();
  for (int device : devices_of(g)) {
    const int gpu = gpu_of(c, device);
    if (gpu < 0 || gpu >= engine_.gpu_count()) {
      drop(c, "named GPU " + std::to_string(gpu) + " in a communicator; the cluster has " +
                  std::to_string(engine_.gpu_count()));
      return;
    }
  }
  PendingCommRequest& pr = comm_requests_[{c.index, r.id()}];
  pr.client = c.index;
  pr.id = r.id();
  pr.t = r.t();
  pr.ready = r.t();
  pr.missing = g.inits_size() + g.splits_size();
  pr.comms.resize(static_cast<size_t>(pr.missing));
  std::vector<CompletedComm> done;
  std::string error;
  int slot = 0;
  for (const wire::CommInit& init : g.inits()) {
    CommMember m{c.index, r.id(), slot++, c.process, init.rank(), gpu_of(c, init.gpu()), 0, r.t()};
    for (auto& cc : comms_.join_init(init.unique_id(), init.nranks(), init.seq(), m, error)) {
      done.push_back(cc);
    }
    if (!error.empty()) break;
  }
  for (const wire::CommSplit& split : g.splits()) {
    if (!error.empty()) break;
    CommMember m{c.index,     r.id(), slot++, c.process, split.rank(), gpu_of(c, split.gpu()),
                 split.key(), r.t()};
    for (auto& cc :
         comms_.join_split(split.parent(), split.color(), m, error, split.exclude_size())) {
      done.push_back(cc);
    }
  }
  if (!error.empty()) {
    comm_requests_.erase({c.index, r.id()});
    abort_run(error);
    return;
  }
  for (const CompletedComm& cc : done) comm_completed(cc);
}

void SessionServer::comm_completed(const CompletedComm& cc) {
  if (cc.comm) engine_.add_comm(cc.comm, cc.gpus);
  for (size_t i = 0; i < cc.members.size(); ++i) {
    const CommMember& m = cc.members[i];
    auto it = comm_requests_.find({m.client, m.request});
    if (it == comm_requests_.end()) continue;
    PendingCommRequest& pr = it->second;
    wire::CommInfo& info = pr.comms[static_cast<size_t>(m.slot)];
    info.set_comm(cc.comm);
    info.set_nranks(cc.nranks);
    info.set_rank(cc.comm ? static_cast<int>(i) : -1);
    pr.ready = std::max(pr.ready, cc.ready);
    if (--pr.missing > 0) continue;
    Client& client = *clients_[static_cast<size_t>(pr.client)];
    if (!client.gone) {
      wire::SessionMessage msg;
      wire::Answer* a = msg.mutable_answer();
      a->set_id(pr.id);
      a->set_t(pr.ready);
      a->set_ready(true);
      a->set_completion(pr.ready);
      for (const auto& ci : pr.comms) *a->add_comms() = ci;
      ++client.answers_sent;
      client.unacked.emplace_back(client.answers_sent, pr.ready);
      send(client, msg);
    }
    comm_requests_.erase(it);
  }
}

void SessionServer::handle_simulate(Client& c, const wire::Request& r) {
  const wire::Collective& col = r.simulate();
  Time estimate = 0;
  const int n = comms_.nranks(col.comm());
  for (const wire::CollPart& w : col.parts()) {
    sim::CollPart p;
    p.kind = static_cast<sim::CollKind>(w.kind());
    p.count = w.count();
    p.type_bytes = w.type_bytes();
    sim::CommShape shape;
    shape.nranks = std::max(1, n);
    shape.nodes = engine_.comm_nodes(col.comm());
    estimate += sim::collective_ns(p, shape, options_.cluster.links);
  }
  answer(c, r.id(), r.t(), true, estimate);
}

void SessionServer::exchange_payloads(Client& c, wire::Collective& col) {
  const int nranks = comms_.nranks(col.comm());
  for (wire::CollPart& part : *col.mutable_parts()) {
    if (!part.payload()) continue;
    if (part.result_id()) c.results_pending[part.result_id()] = true;
    std::string error;
    for (PayloadResult& r :
         payloads_.submit(c.index, col.comm(), nranks, col.rank(), std::move(part), error)) {
      send_result(r);
    }
    if (!error.empty()) problems_.push_back(error);
  }
}

// A result goes out as soon as it is known. It carries no time (the thread that reads it has its
// own clock) and wakes no thread (one that needs it asks with a PayloadWait, answered after it),
// so the client does not acknowledge it: an all-to-all sends each rank one result per peer.
void SessionServer::send_result(PayloadResult& r) {
  Client& c = *clients_[static_cast<size_t>(r.client)];
  c.results_pending.erase(r.id);
  if (c.gone) return;
  wire::SessionMessage m;
  wire::Answer* a = m.mutable_answer();
  a->set_id(r.id);
  a->set_ready(true);
  a->set_unasked(true);
  if (r.zeros) {
    a->set_payload_zeros(r.zeros);
  } else {
    a->set_payload(std::move(r.bytes));
  }
  send(c, m);
  answer_payload_waits(c);
}

// Every rank waits and nothing can complete, and some wait for the bytes of a collective or
// receive that a peer has not called yet: on a real GPU that wait is on the stream, not on the
// host, and the peer would go on. Those waits end now without the bytes (the client keeps what
// the buffer held); a collective that is really never called is still found as a deadlock
// when the rank synchronizes.
void SessionServer::abandon_payload_waits() {
  for (const PayloadWaitRequest& w : payload_waits_) {
    Client& c = *clients_[static_cast<size_t>(w.client)];
    answer(c, w.id, w.t, true, w.t);
  }
  payload_waits_.clear();
  ++payload_waits_abandoned_;
  if (payload_waits_abandoned_ == 1) {
    problems_.push_back(
        "a rank used the output of a collective or receive before its peers had called it, while "
        "every rank waited; Seer let it go on without those bytes (interposer/client/PAYLOAD.md)");
  }
}

void SessionServer::handle_payload_wait(Client& c, const wire::Request& r) {
  PayloadWaitRequest w;
  w.client = c.index;
  w.id = r.id();
  w.t = r.t();
  w.thread = r.thread();
  w.result_ids.assign(r.payload_wait().result_ids().begin(), r.payload_wait().result_ids().end());
  payload_waits_.push_back(std::move(w));
  answer_payload_waits(c);
}

void SessionServer::answer_payload_waits(Client& c) {
  for (size_t i = 0; i < payload_waits_.size();) {
    const PayloadWaitRequest& w = payload_waits_[i];
    bool ready = w.client == c.index;
    for (uint64_t id : w.result_ids) ready = ready && !c.results_pending.count(id);
    if (!ready) {
      ++i;
      continue;
    }
    const Time t = std::max(w.t, engine_.now());
    if (t > w.t) host_waits_.push_back({c.process, w.thread, w.t, t, "a collective's data"});
    answer(c, w.id, t, true, t);
    payload_waits_.erase(payload_waits_.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

// Ranks wait for simulated work that cannot complete because some process, outside Seer (in MPI,
// in a socket read), still promises an earlier time: after park_after ms without progress, such
// processes are asked to park the threads that wait for the world outside them, and asked again
// every park_after ms while nothing moves (Core::park_idle_threads). Only a stuck simulation
// parks anyone, and only threads that wait outside the process, so a run in which nobody waits
// for a rank outside CUDA never depends on real time.
void SessionServer::request_parking(double idle_s) {
  const bool tracked_waits =
      !payload_waits_.empty() || std::any_of(waits_.begin(), waits_.end(), [](const auto& w) {
        return !w.second.request.observer();
      });
  if (!tracked_waits) return;
  const int64_t after_ms = options_.host_time == HostTime::kModeled ? options_.park_after_ms_modeled
                                                                    : options_.park_after_ms;
  if (idle_s * 1000 < static_cast<double>(after_ms)) return;
  const auto now = std::chrono::steady_clock::now();
  if (parking_requested_ && *parking_requested_ > last_progress_ &&
      now - *parking_requested_ < std::chrono::milliseconds(after_ms)) {
    return;
  }
  parking_requested_ = now;
  wire::SessionMessage m;
  m.set_park(true);
  for (const auto& c : clients_) {
    if (c->gone || c->info.said_goodbye || !c->welcomed || c->all_blocked) continue;
    if (effective_promise(*c, false) == kNever) continue;
    send(*c, m);
  }
}

void SessionServer::report_deadlock(const std::string& extra) {
  std::string msg = "deadlock: every rank waits and no simulated work can complete.";
  for (const auto& [token, pr] : waits_) {
    const Client& c = *clients_[pr.client];
    msg += "\n  process " + std::to_string(c.info.pid) +
           (c.info.rank >= 0 ? " (rank " + std::to_string(c.info.rank) + ")" : "") + " waits in " +
           describe(pr.request) +
           (c.last_call.empty() ? "" : " (its last enqueued call: " + c.last_call + ")");
  }
  for (const auto& [key, pr] : comm_requests_) {
    const Client& c = *clients_[static_cast<size_t>(pr.client)];
    msg += "\n  process " + std::to_string(c.info.pid) +
           (c.info.rank >= 0 ? " (rank " + std::to_string(c.info.rank) + ")" : "") +
           " waits in ncclCommInitRank/ncclCommSplit";
  }
  for (const std::string& w : engine_.describe_waiting_collectives()) msg += "\n  " + w;
  for (const PayloadWaitRequest& w : payload_waits_) {
    const Client& c = *clients_[static_cast<size_t>(w.client)];
    msg += "\n  process " + std::to_string(c.info.pid) +
           (c.info.rank >= 0 ? " (rank " + std::to_string(c.info.rank) + ")" : "") +
           " reads the output of a collective and waits for its data";
  }
  for (const std::string& w : comms_.describe_waiting()) msg += "\n  " + w;
  for (const std::string& w : payloads_.describe_waiting()) msg += "\n  " + w;
  msg += extra;
  waits_.clear();
  comm_requests_.clear();
  payload_waits_.clear();
  abort_run(msg);
}

void SessionServer::check_stuck() {
  if (waits_.empty() && comm_requests_.empty() && payload_waits_.empty()) return;
  const double idle =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - last_progress_).count();
  request_parking(idle);
  // Every rank waits in Seer or has been outside CUDA for long (parked, e.g. blocked in MPI
  // waiting for a rank that waits in Seer): after a grace period this is a deadlock too.
  if (!aborted_ && idle >= options_.deadlock_grace_s && safe_time() == kNever &&
      !engine_.next_event_time() && joined_ranks_ >= expected_ranks_) {
    std::string parked;
    for (const auto& c : clients_) {
      if (c->gone || c->info.said_goodbye ||
          (c->all_blocked && c->answers_received == c->answers_sent))
        continue;
      parked += "\n  process " + std::to_string(c->info.pid) +
                (c->info.rank >= 0 ? " (rank " + std::to_string(c->info.rank) + ")" : "") +
                " has made no CUDA/NCCL call for " + std::to_string(static_cast<int>(idle)) +
                " s (last: " + (c->last_call.empty() ? "none" : c->last_call) +
                "); if it waits for the others outside CUDA (MPI, sockets), nothing can move";
    }
    report_deadlock(parked);
    return;
  }
  if (!aborted_ && joined_ranks_ < expected_ranks_ && idle >= options_.join_timeout_s) {
    abort_run("only " + std::to_string(joined_ranks_) + " of the " +
              std::to_string(expected_ranks_) + " ranks announced by the launcher (WORLD_SIZE or " +
              "similar) submitted GPU work within " + std::to_string(static_cast<int>(idle)) +
              " s; the others never started or never use CUDA");
    return;
  }
  if (hang_reported_) return;
  if (idle < options_.hang_warning_s) return;
  hang_reported_ = true;
  std::string msg = "no simulated progress for " + std::to_string(static_cast<int>(idle)) +
                    " s while ranks wait; holding virtual time back:";
  if (joined_ranks_ < expected_ranks_) {
    msg += "\n  only " + std::to_string(joined_ranks_) + " of " + std::to_string(expected_ranks_) +
           " ranks have submitted GPU work yet";
  }
  for (const auto& c : clients_) {
    const Time p = effective_promise(*c, false);
    if (p == kNever) continue;
    msg += "\n  process " + std::to_string(c->info.pid) +
           (c->info.rank >= 0 ? " (rank " + std::to_string(c->info.rank) + ")" : "") +
           " at virtual time " + std::to_string(p) + " ns, last call " +
           (c->last_call.empty() ? "none" : c->last_call);
  }
  std::fprintf(stderr, "seer: %s\n", msg.c_str());
}

void SessionServer::show_progress() {
  const auto now = std::chrono::steady_clock::now();
  const double since = std::chrono::duration<double>(now - last_progress_line_).count();
  if (since < 1.0) return;
  if (!progress_shown_ && std::chrono::duration<double>(now - started_).count() < 1.0) return;
  Time simulated = 0;
  for (const auto& c : clients_) simulated = std::max(simulated, c->info.last_time);
  const double rate =
      progress_shown_ ? static_cast<double>(records_ - records_at_progress_line_) / since : 0;
  const int live = live_clients();
  std::string line = "seer: simulated " + human_time(simulated) + ", " + std::to_string(live) +
                     (live == 1 ? " process" : " processes") + " running";
  if (progress_shown_) line += ", " + std::to_string(static_cast<int64_t>(rate)) + " records/s";
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  std::fflush(stderr);
  last_progress_line_ = now;
  records_at_progress_line_ = records_;
  progress_shown_ = true;
}

SessionResult SessionServer::result() const {
  SessionResult r;
  r.aborted = aborted_;
  for (const auto& c : clients_) {
    if (c->welcomed) r.processes.push_back(c->info);
  }
  std::sort(r.processes.begin(), r.processes.end(),
            [](const ProcessInfo& a, const ProcessInfo& b) { return a.process < b.process; });
  r.problems = problems_;
  r.wall_seconds = wall_seconds_;
  Time end = 0;
  for (const auto& rec : engine_.records()) end = std::max(end, rec.end);
  for (const auto& p : r.processes) end = std::max(end, p.last_time);
  r.simulated_ns = end;
  r.records = records_;
  r.requests = requests_;
  r.nvtx = nvtx_;
  r.collective_calls = collective_calls_;
  r.host_waits = host_waits_;
  for (const auto& h : hosts_) r.hosts.push_back(h->info);
  return r;
}

Session::Session(SessionOptions options)
    : server_(std::make_unique<SessionServer>(std::move(options))) {}
Session::~Session() = default;
const std::string& Session::socket_path() const { return server_->socket_path(); }
std::string Session::listen_address() const { return server_->listen_address(); }
bool Session::remote_hosts_finished() const { return server_->remote_hosts_finished(); }
void Session::serve(const std::function<bool()>& keep_going) { server_->serve(keep_going); }
SessionResult Session::result() const { return server_->result(); }
void Session::abort(const std::string& why) { server_->abort(why); }
const sim::Engine& Session::engine() const { return server_->engine(); }
const SessionOptions& Session::options() const { return server_->options(); }

}  // namespace seer::rt
