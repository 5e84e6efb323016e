// Exit statuses of a process stopped by Seer's libcuda.so.1 (static_runtime_stop.cpp), for the
// frontend to turn into advice. The guard prints the details to stderr first.
#pragma once

namespace seer {

// The program (or a library it loaded) links the CUDA runtime statically: rebuild it with
// 'nvcc -cudart shared'.
inline constexpr int kStaticRuntimeExitCode = 97;

// NVIDIA's shared CUDA runtime was loaded instead of Seer's replacement: a setup error of Seer
// (LD_PRELOAD / LD_AUDIT), not of the program.
inline constexpr int kRealRuntimeExitCode = 98;

}  // namespace seer
