#pragma once

#include <cstdint>

#include "seer/simcore/cost_models.h"
#include "seer/simcore/op.h"
#include "seer/simcore/time.h"

namespace seer::sim {

// Where the ranks of a communicator sit.
struct CommShape {
  int nranks = 1;
  int nodes = 1;  // distinct nodes spanned
};

// The buffer size S nccl-tests reports for one rank's call: count x type size, times nranks for
// AllGather, ReduceScatter, AlltoAll, Gather and Scatter.
uint64_t collective_bytes(const CollPart& part, int nranks);

// Simple documented model (simcore/README.md, "Collective model"): a ring over uniform links —
// the scale-out rail when the communicator spans several nodes, else the scale-up fabric — with
// a per-step latency and the ring's bandwidth term.
Time collective_ns(const CollPart& part, const CommShape& shape, const NodeLinks& links);
// One send/recv pair.
Time p2p_ns(uint64_t bytes, bool same_node, const NodeLinks& links);

}  // namespace seer::sim
