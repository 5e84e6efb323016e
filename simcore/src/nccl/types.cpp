#include "seer/simcore/nccl/types.h"

#include <strings.h>

namespace seer::sim::nccl {

namespace {
constexpr const char* kAlgoNames[kNumAlgos] = {
    "Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT"};
constexpr const char* kProtoNames[kNumProtos] = {"LL", "LL128", "Simple"};
constexpr const char* kFuncNames[kNumFuncs] = {"Broadcast", "Reduce", "AllGather", "ReduceScatter",
                                               "AllReduce"};
}  // namespace

const char* algo_name(Algo a) { return kAlgoNames[idx(a)]; }
const char* proto_name(Proto p) { return kProtoNames[idx(p)]; }
const char* func_name(Func f) { return kFuncNames[idx(f)]; }

const char* arch_name(Arch a) {
  switch (a) {
    case Arch::kVolta:
      return "Volta";
    case Arch::kAmpere:
      return "Ampere";
    case Arch::kHopper:
      return "Hopper";
    case Arch::kBlackwell:
      return "Blackwell";
  }
  return "?";
}

const char* path_name(PathType p) {
  switch (p) {
    case PathType::kLoc:
      return "LOC";
    case PathType::kNvl:
      return "NVL";
    case PathType::kNvb:
      return "NVB";
    case PathType::kC2c:
      return "C2C";
    case PathType::kPix:
      return "PIX";
    case PathType::kPxb:
      return "PXB";
    case PathType::kP2c:
      return "P2C";
    case PathType::kPxn:
      return "PXN";
    case PathType::kPhb:
      return "PHB";
    case PathType::kSys:
      return "SYS";
    case PathType::kNet:
      return "NET";
    case PathType::kDis:
      return "DIS";
  }
  return "?";
}

std::optional<Algo> algo_from_name(const char* s) {
  for (int i = 0; i < kNumAlgos; ++i) {
    if (strcasecmp(s, kAlgoNames[i]) == 0) return static_cast<Algo>(i);
  }
  return std::nullopt;
}

std::optional<Proto> proto_from_name(const char* s) {
  for (int i = 0; i < kNumProtos; ++i) {
    if (strcasecmp(s, kProtoNames[i]) == 0) return static_cast<Proto>(i);
  }
  return std::nullopt;
}

std::optional<Func> func_from_name(const char* s) {
  for (int i = 0; i < kNumFuncs; ++i) {
    if (strcasecmp(s, kFuncNames[i]) == 0) return static_cast<Func>(i);
  }
  return std::nullopt;
}

std::optional<Func> func_of(CollKind kind) {
  switch (kind) {
    case CollKind::kAllReduce:
      return Func::kAllReduce;
    case CollKind::kBroadcast:
      return Func::kBroadcast;
    case CollKind::kReduce:
      return Func::kReduce;
    case CollKind::kAllGather:
      return Func::kAllGather;
    case CollKind::kReduceScatter:
      return Func::kReduceScatter;
    default:
      return std::nullopt;
  }
}

Arch arch_of(int sm) {
  if (sm >= 100) return Arch::kBlackwell;
  if (sm >= 90) return Arch::kHopper;
  if (sm >= 80) return Arch::kAmpere;
  return Arch::kVolta;
}

}  // namespace seer::sim::nccl
