#include "comm.h"

#include <map>
#include <mutex>
#include <string>
#include <unordered_set>

#include "cuda_state.h"
#include "graph.h"
#include "payload.h"

namespace seer::nccl {
namespace {

std::mutex g_mu;
std::unordered_set<const Comm*> g_live;
thread_local int tl_depth = 0;
thread_local std::vector<Deferred> tl_deferred;

void fill(Comm* c, const wire::CommInfo& info) {
  c->id = info.comm();
  c->nranks = info.nranks();
  c->rank = info.rank();
}

}  // namespace

bool valid(const Comm* c) {
  std::lock_guard<std::mutex> lock(g_mu);
  return c && g_live.count(c) > 0;
}

Comm* new_comm() {
  auto* c = new Comm();
  std::lock_guard<std::mutex> lock(g_mu);
  g_live.insert(c);
  return c;
}

void forget(Comm* c) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_live.erase(c)) delete c;
}

int& group_depth() { return tl_depth; }
std::vector<Deferred>& deferred() { return tl_deferred; }

const char* error_string(ncclResult_t r) {
  switch (r) {
    case ncclSuccess:
      return "no error";
    case ncclUnhandledCudaError:
      return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
    case ncclSystemError:
      return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
    case ncclInternalError:
      return "internal error - please report this issue to the NCCL developers";
    case ncclInvalidArgument:
      return "invalid argument (run with NCCL_DEBUG=WARN for details)";
    case ncclInvalidUsage:
      return "invalid usage (run with NCCL_DEBUG=WARN for details)";
    case ncclRemoteError:
      return "remote process exited or there was a network error";
    case ncclInProgress:
      return "NCCL operation in progress";
    default:
      return "unknown result code";
  }
}

ncclResult_t finish_pending(client::ThreadState& ts, Comm* c) {
  if (!c->pending_request) return c->async_error;
  const wire::Answer a = client::Core::instance().wait_async(ts, c->pending_request);
  c->pending_request = 0;
  if (!a.error().empty() || c->pending_slot >= a.comms_size()) {
    c->async_error = ncclInvalidUsage;
    return c->async_error;
  }
  fill(c, a.comms(c->pending_slot));
  c->async_error = ncclSuccess;
  return ncclSuccess;
}

ncclResult_t run_group(client::ThreadState& ts) {
  std::vector<Deferred> calls;
  calls.swap(tl_deferred);
  client::Core& core = client::Core::instance();
  // 1. Communicator creation: one request for all inits and splits of the group.
  wire::Request req;
  std::vector<Deferred*> creators;
  bool all_nonblocking = true;
  for (Deferred& d : calls) {
    if (d.kind == Deferred::kInit) {
      *req.mutable_comm_init()->add_inits() = d.init;
    } else if (d.kind == Deferred::kSplit) {
      *req.mutable_comm_init()->add_splits() = d.split;
    } else {
      continue;
    }
    creators.push_back(&d);
    all_nonblocking = all_nonblocking && d.comm->nonblocking;
  }
  ncclResult_t result = ncclSuccess;
  if (!creators.empty()) {
    if (all_nonblocking) {
      const uint64_t id = core.send_async(ts, req);
      for (size_t i = 0; i < creators.size(); ++i) {
        creators[i]->comm->pending_request = id;
        creators[i]->comm->pending_slot = static_cast<int>(i);
        creators[i]->comm->async_error = ncclInProgress;
      }
      result = ncclInProgress;
    } else {
      const wire::Answer a = core.request(ts, req);
      for (size_t i = 0; i < creators.size(); ++i) {
        Comm* c = creators[i]->comm;
        if (static_cast<int>(i) < a.comms_size()) fill(c, a.comms(static_cast<int>(i)));
        if (creators[i]->kind == Deferred::kSplit && c->id == 0) {
          *creators[i]->out = nullptr;  // NCCL_SPLIT_NOCOLOR
          forget(c);
        }
      }
    }
  }
  for (Deferred& d : calls) {
    if (d.kind == Deferred::kColl && d.comm->pending_request) finish_pending(ts, d.comm);
  }
  bool in_capture = false;  // captured collectives replay without their bytes (GRAPHS.md)
  for (const Deferred& d : calls) {
    if (d.kind != Deferred::kColl) continue;
    client::StreamObj* s = client::CudaState::instance().resolve_stream(ts, d.stream, false);
    in_capture = in_capture || (s && client::graph::capturing(s));
  }
  if (!in_capture) attach_payloads(calls);
  // 2. Operations: send/recv parts fused per (communicator, stream); collectives one each.
  std::map<std::pair<const Comm*, const void*>, size_t> fused;
  std::vector<std::pair<wire::Collective, client::StreamObj*>> ops;
  for (Deferred& d : calls) {
    if (d.kind != Deferred::kColl) continue;
    if (d.comm->pending_request) finish_pending(ts, d.comm);
    client::StreamObj* s = client::CudaState::instance().resolve_stream(ts, d.stream, false);
    if (!s) return ncclInvalidArgument;
    const bool p2p = d.part.kind() == wire::COLL_SEND || d.part.kind() == wire::COLL_RECV;
    if (p2p) {
      auto key = std::make_pair(static_cast<const Comm*>(d.comm), d.stream);
      auto it = fused.find(key);
      if (it != fused.end()) {
        *ops[it->second].first.add_parts() = d.part;
        continue;
      }
      fused[key] = ops.size();
    }
    wire::Collective c;
    c.set_comm(d.comm->id);
    c.set_rank(d.comm->rank);
    c.set_stream(s->id);
    *c.add_parts() = d.part;
    ops.emplace_back(std::move(c), s);
  }
  for (auto& [c, s] : ops) {
    client::PodRecord r;
    r.type = client::PodRecord::kCollective;
    r.collective = new wire::Collective(std::move(c));
    if (client::graph::submit(ts, s, r) != cudaSuccess) result = ncclInvalidUsage;
  }
  return result;
}

}  // namespace seer::nccl

// The bytes of small collectives (interposer/client/PAYLOAD.md): each rank sends its input with
// the collective's record and receives its output from the session later.
namespace seer::nccl {
namespace {

struct PremulScalar {
  std::string value;             // host-immediate scalars, read at creation
  const void* device = nullptr;  // device scalars, read when the collective is submitted
};

std::mutex g_scalar_mu;
std::map<int, PremulScalar> g_scalars;

bool per_rank_blocks(wire::CollKind k) {
  return k == wire::COLL_ALL_GATHER || k == wire::COLL_REDUCE_SCATTER ||
         k == wire::COLL_ALL_TO_ALL || k == wire::COLL_GATHER || k == wire::COLL_SCATTER;
}

// Bytes this rank contributes and receives.
uint64_t input_bytes(const wire::CollPart& p, int rank, int nranks) {
  const uint64_t one = p.count() * static_cast<uint64_t>(p.type_bytes());
  switch (p.kind()) {
    case wire::COLL_RECV:
      return 0;
    case wire::COLL_BROADCAST:
      return rank == p.root() ? one : 0;
    case wire::COLL_SCATTER:
      return rank == p.root() ? one * nranks : 0;
    case wire::COLL_REDUCE_SCATTER:
    case wire::COLL_ALL_TO_ALL:
      return one * nranks;
    default:
      return one;
  }
}

uint64_t output_bytes(const wire::CollPart& p, int rank, int nranks) {
  const uint64_t one = p.count() * static_cast<uint64_t>(p.type_bytes());
  switch (p.kind()) {
    case wire::COLL_SEND:
      return 0;
    case wire::COLL_REDUCE:
      return rank == p.root() ? one : 0;
    case wire::COLL_GATHER:
      return rank == p.root() ? one * nranks : 0;
    case wire::COLL_ALL_GATHER:
    case wire::COLL_ALL_TO_ALL:
      return one * nranks;
    default:
      return one;
  }
}

}  // namespace

void remember_premul_scalar(ncclRedOp_t op, const void* scalar, ncclDataType_t type,
                            ncclScalarResidence_t residence) {
  PremulScalar s;
  if (residence == ncclScalarHostImmediate) {
    if (scalar) s.value.assign(static_cast<const char*>(scalar), type_bytes(type));
  } else {
    s.device = scalar;
  }
  std::lock_guard<std::mutex> lock(g_scalar_mu);
  g_scalars[static_cast<int>(op)] = s;
}

std::string premul_scalar(int op, ncclDataType_t type) {
  PremulScalar s;
  {
    std::lock_guard<std::mutex> lock(g_scalar_mu);
    auto it = g_scalars.find(op);
    if (it == g_scalars.end()) return {};
    s = it->second;
  }
  if (s.device) return client::Payload::instance().read(s.device, type_bytes(type));
  return s.value;
}

// Send/recv parts are judged per rank and group (PAYLOAD.md): a group's sends on one communicator
// are one input, its receives one output, each carried only if its total is within the limit, as
// ncclAllToAll judges its whole buffers. Whether a part takes part in the session's matching
// still depends only on the part itself (count and datatype, which both sides agree on), so
// the two sides of every pair are matched even when only one of them carries bytes.
namespace {
struct P2pTotals {
  uint64_t sent = 0;
  uint64_t received = 0;
};
}  // namespace

void attach_payloads(std::vector<Deferred>& calls) {
  client::Payload& payload = client::Payload::instance();
  const uint64_t limit = payload.max_bytes();
  if (limit == 0) return;
  std::map<const Comm*, P2pTotals> p2p;
  for (const Deferred& d : calls) {
    if (d.kind != Deferred::kColl) continue;
    const uint64_t one = d.part.count() * static_cast<uint64_t>(d.part.type_bytes());
    if (d.part.kind() == wire::COLL_SEND) p2p[d.comm].sent += one;
    if (d.part.kind() == wire::COLL_RECV) p2p[d.comm].received += one;
  }
  std::vector<Deferred*> carrying;
  for (Deferred& d : calls) {
    if (d.kind != Deferred::kColl || d.comm->nranks < 1) continue;
    wire::CollPart& p = d.part;
    const uint64_t one = p.count() * static_cast<uint64_t>(p.type_bytes());
    // Whether a part is matched at all is the same on every rank (and on both sides of a
    // send/recv): it depends only on the call's arguments.
    const uint64_t largest = per_rank_blocks(p.kind()) ? one * d.comm->nranks : one;
    if (largest > limit) continue;
    p.set_payload(true);
    if (p.kind() == wire::COLL_SEND || p.kind() == wire::COLL_RECV) {
      const P2pTotals& t = p2p[d.comm];
      if ((p.kind() == wire::COLL_SEND ? t.sent : t.received) > limit) {
        p.set_withheld(true);
        continue;
      }
    }
    const uint64_t in = input_bytes(p, d.comm->rank, d.comm->nranks);
    if (in && d.sendbuff) p.set_input(payload.input(d.sendbuff, in));
    if (p.redop() >= ncclNumOps)
      p.set_scalar(premul_scalar(p.redop(), static_cast<ncclDataType_t>(p.datatype())));
    carrying.push_back(&d);
  }
  for (Deferred* d : carrying) {
    const uint64_t out = output_bytes(d->part, d->comm->rank, d->comm->nranks);
    if (out && d->recvbuff) d->part.set_result_id(payload.expect(d->recvbuff, out));
  }
}

}  // namespace seer::nccl
