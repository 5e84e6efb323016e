#pragma once

// cuGetProcAddress's name resolution, independent of the library around it (unit-tested):
// a driver function name and the CUDA version the caller was built for give the exported
// symbol of the matching ABI (cuMemAlloc at 3020 or later is cuMemAlloc_v2), and its
// per-thread-default-stream form (_ptsz / _ptds) when the caller asks for one.

#include <functional>
#include <string>
#include <string_view>

namespace seer::driver {

enum class ProcStatus { kFound, kSymbolNotFound, kVersionNotSufficient };

struct ProcLookup {
  ProcStatus status = ProcStatus::kSymbolNotFound;
  std::string symbol;
};

// `exported(symbol)` says whether the library exports a symbol of that name.
ProcLookup resolve_proc(std::string_view name, int cuda_version, bool per_thread_stream,
                        const std::function<bool(const std::string&)>& exported);

}  // namespace seer::driver
