#pragma once

// How the session names one cuDNN op (a LibraryOp, as wire::LibraryCall carries it) in its kernel
// table and looks it up in the kernel database: pure functions shared by Seer's cuDNN and by
// seer profile's recorder (interposer/profiler), which must name a real cuDNN call's ops exactly
// as the session names Seer's.

#include <string>

#include "types.h"

namespace seer::cudnn {

// "api [dtype]", e.g. "cudnn sdpa fwd [bf16]" (runtime/src/session_server.cpp library_label).
std::string op_label(const LibraryOp& op);

// The database parameters of the op (simcore/src/engine.cpp duration_of, OpKind::kLibrary):
// "m=..,n=..,k=..,batch=.." for GEMM-shaped ops (batch at least 1, as the session counts it),
// "bytes=.." for memory-bound ones (the byte count as the session truncates it, at least 0).
std::string op_params(const LibraryOp& op);

}  // namespace seer::cudnn
