#pragma once

// A shadow of the real cuDNN's backend descriptors, so that the recorder can name what an
// execution plan runs as Seer's cuDNN names it. Every successful backend call of the program is
// mirrored onto a descriptor of Seer's own store (interposer/cudnn/descriptor.h, compiled in),
// keyed by the real descriptor's handle; finalizing a shadow derives what Seer's cuDNN derives,
// so a finalized plan's shadow holds the ops Seer's cuDNN would enqueue for it
// (interposer/cudnn/graph_model.h). Thread-safe. Nothing here calls cuDNN.

#include <cstdint>
#include <vector>

#include "types.h"

namespace seer::profiler::cudnn_shadow {

// After the real call succeeded.
void created(void* real, int type);
void destroyed(void* real);
void initialized(void* real);
void set(void* real, int name, int type, int64_t count, const void* elements);
// A descriptor-valued read: the shadows of the descriptors it filled become copies of what the
// shadow holds (the real heuristics may return more engine configurations than Seer's one: all
// run the same graph, so each gets Seer's).
void got(void* real, int name, int type, int64_t filled, void* const* elements);
// The real library accepted the descriptor: so does its shadow, even where Seer's own checks
// would refuse it (its derived values are then what Seer's checks left).
void finalized(void* real);

// The ops Seer's cuDNN enqueues for the plan (empty: not a plan Seer's cuDNN can name, such as
// one restored from its JSON text, or a graph created before the recorder was loaded).
std::vector<seer::cudnn::LibraryOp> plan_ops(void* real_plan);

// Live shadows (for tests).
size_t size();

}  // namespace seer::profiler::cudnn_shadow
