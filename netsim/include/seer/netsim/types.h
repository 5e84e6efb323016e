#pragma once

#include <cstdint>

namespace seer::net {

// Simulated time in nanoseconds, everywhere in Seer.
using Time = std::int64_t;

// Index of a node in a Topology (dense, assigned in insertion order from 0).
using NodeId = std::int32_t;

// Index of a directed link in a Topology (dense, assigned in insertion order from 0).
using LinkId = std::int32_t;

// Identifier of a flow in a FlowModel: assigned from 0 in start order, never reused.
using FlowId = std::uint64_t;

}  // namespace seer::net
