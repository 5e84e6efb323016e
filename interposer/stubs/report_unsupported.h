// One-time diagnostics for Seer's replacement libraries (cudart, NCCL, cuBLAS, ...).
//
// Each message goes to stderr once per process and per distinct (lib, name) pair, followed by up
// to 8 frames of the caller's stack, starting at the first frame outside the library that contains
// this code (Seer's own frames are skipped):
//
//   seer: cudaMemAdvise is not implemented by Seer's cudart replacement; returning
//   cudaErrorNotSupported (801)
//     #0 0x55d0c1a2b3c4 prefetch_weights+0x24 (/home/u/train)
//     #1 0x7f3e1c02a1ca __libc_start_call_main+0x7a (/lib/x86_64-linux-gnu/libc.so.6)
//
// Both functions are thread-safe; after the first report of a pair they only hash the two
// strings and read an atomic table (lock-free, no allocation). They are hidden: every replacement
// library links its own copy (the seer_report_unsupported OBJECT library) and keeps its own
// "already reported" table.
#pragma once

#define SEER_REPORT_API __attribute__((visibility("hidden")))

#ifdef __cplusplus
extern "C" {
#endif

// For a function Seer does not implement (used by the generated stubs): prints
// "seer: <fn> is not implemented by Seer's <lib> replacement; returning <result>".
// `result` describes what the caller gets back, e.g. "cudaErrorNotSupported (801)" or "NULL".
// `caller` is __builtin_return_address(0) of the unsupported function: it is printed as frame #0
// when no stack can be walked.
SEER_REPORT_API void seer_report_unsupported(const char* lib, const char* fn, const char* result,
                                             void* caller);

// For an implemented function that approximates or ignores part of a request: prints
// "seer: <lib>: <what>", e.g. seer_report_once("cudart", "cudaMemAdvise: advice ignored").
// `what` is the key: pass a fixed text (not one with changing numbers) to get one message.
SEER_REPORT_API void seer_report_once(const char* lib, const char* what);

#ifdef __cplusplus
}
#endif
