#pragma once

namespace seer::driver {

// Ends the process with the static-runtime message (README.md): `function` is the driver entry
// point that was called, `caller` its return address (which object made the call).
[[noreturn]] void stop_static_runtime(const char* function, void* caller);

// Whether the object containing `caller` asks for the private tables only optionally and works
// without them (NVRTC does: it compiles for real under Seer).
bool tolerates_missing_export_table(void* caller);

}  // namespace seer::driver
