#pragma once

// Callback ids of the runtime and driver APIs by entry-point name, from the CUPTI headers
// (generated at configure time: cbid_runtime.inc, cbid_driver.inc).

#include <cupti.h>

#include <cstdint>

namespace seer::cupti {

// The callback id of `name` (the entry point, e.g. "cudaMemcpyAsync_ptsz", "cuLaunchKernel") in
// `domain`; -1 when the headers know none.
int64_t callback_id(CUpti_CallbackDomain domain, const char* name);
// The name of a callback id; nullptr when unknown.
const char* callback_name(CUpti_CallbackDomain domain, uint32_t cbid);

}  // namespace seer::cupti
