#pragma once

// Vocabulary of NCCL's performance model: algorithms, protocols, the five collective functions
// NCCL tunes, GPU architecture classes and topology path types. See simcore/src/nccl/README.md.

#include <cstdint>
#include <optional>

#include "seer/simcore/op.h"

namespace seer::sim::nccl {

// Same order as NCCL's NCCL_ALGO_* indices (tables in version.h are indexed by it).
enum class Algo : uint8_t { kTree, kRing, kCollNetDirect, kCollNetChain, kNvls, kNvlsTree, kPat };
inline constexpr int kNumAlgos = 7;

// Same order as NCCL's NCCL_PROTO_* indices.
enum class Proto : uint8_t { kLL, kLL128, kSimple };
inline constexpr int kNumProtos = 3;

// The functions NCCL's tuner knows (ncclFunc_t order). Send/recv, AlltoAll, Gather and Scatter
// are grouped point-to-point operations: NCCL has no cost model for them (see p2p_estimate()).
enum class Func : uint8_t { kBroadcast, kReduce, kAllGather, kReduceScatter, kAllReduce };
inline constexpr int kNumFuncs = 5;

// GPU architecture classes of NCCL's per-architecture tables.
enum class Arch : uint8_t { kVolta, kAmpere, kHopper, kBlackwell };
inline constexpr int kNumArchs = 4;

// NCCL's path types, ordered from closest to farthest (PATH_LOC ... PATH_DIS of NCCL 2.28;
// 2.18 lacks C2C and P2C, which keeps the relative order of the others).
enum class PathType : uint8_t {
  kLoc,
  kNvl,
  kNvb,
  kC2c,
  kPix,
  kPxb,
  kP2c,
  kPxn,
  kPhb,
  kSys,
  kNet,
  kDis
};

// Hardware classes of NCCL's latency tables.
enum class Hw : uint8_t { kNvlink, kPci, kNet };
inline constexpr int kNumHw = 3;

const char* algo_name(Algo a);    // NCCL's spelling: "Tree", "Ring", ..., "NVLSTree", "PAT"
const char* proto_name(Proto p);  // "LL", "LL128", "Simple"
const char* func_name(Func f);  // "Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce"
const char* arch_name(Arch a);
const char* path_name(PathType p);

// Case-insensitive lookups by NCCL's spelling.
std::optional<Algo> algo_from_name(const char* s);
std::optional<Proto> proto_from_name(const char* s);
std::optional<Func> func_from_name(const char* s);

// The NCCL function that times a collective kind; nullopt for point-to-point based kinds.
std::optional<Func> func_of(CollKind kind);

// NCCL's compute-capability index: >= 100 Blackwell, >= 90 Hopper, >= 80 Ampere, else Volta.
Arch arch_of(int sm);

inline int idx(Algo a) { return static_cast<int>(a); }
inline int idx(Proto p) { return static_cast<int>(p); }
inline int idx(Func f) { return static_cast<int>(f); }
inline int idx(Arch a) { return static_cast<int>(a); }
inline int idx(Hw h) { return static_cast<int>(h); }

}  // namespace seer::sim::nccl
