#pragma once

// The size of one element of an NCCL data type, 0 for an unknown one. Header-only: Seer's NCCL
// and the NCCL stand-in (../nccl_standin) both use it, and the stand-in links nothing of Seer's.

#include <nccl.h>

#include <cstddef>

namespace seer::nccl {

inline constexpr size_t datatype_bytes(ncclDataType_t t) {
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

}  // namespace seer::nccl
