// Formats the calling thread's stack for Seer's one-time diagnostics (report_unsupported.h).
#pragma once

#include <cstddef>

namespace seer {

// Writes up to `max_frames` lines "  #i 0xADDR function+0xOFF (object file)\n" into `buf`
// (NUL-terminated, truncated to `size`), starting at the first frame outside the shared object
// that contains this code. Without libunwind, or when no such frame is found, writes the single
// frame `fallback_pc`. Returns the number of characters written, excluding the NUL.
__attribute__((visibility("hidden"))) size_t FormatCallerStack(char* buf, size_t size,
                                                               void* fallback_pc, int max_frames);

}  // namespace seer
