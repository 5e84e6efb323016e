#include "comm.h"

#include <map>
#include <mutex>
#include <unordered_set>

#include "cuda_state.h"

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

int type_bytes(ncclDataType_t t) {
  switch (t) {
    case ncclInt8:
    case ncclUint8:
    case ncclFloat8e4m3:
    case ncclFloat8e5m2:
      return 1;
    case ncclFloat16:
    case ncclBfloat16:
      return 2;
    case ncclInt32:
    case ncclUint32:
    case ncclFloat32:
      return 4;
    case ncclInt64:
    case ncclUint64:
    case ncclFloat64:
      return 8;
    default:
      return 0;
  }
}

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
    r.t = ts.clock.load(std::memory_order_relaxed);
    r.collective = new wire::Collective(std::move(c));
    ++s->submitted;
    core.add_record(ts, r);
  }
  return result;
}

}  // namespace seer::nccl
