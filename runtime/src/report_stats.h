#pragma once

#include <map>
#include <string>
#include <vector>

#include "seer/runtime/session.h"

namespace seer::rt {

struct GpuStats {
  int gpu = 0;
  int64_t busy_ns = 0;  // union of the intervals where any op ran
  uint64_t kernels = 0;
  int64_t kernel_ns = 0;
  uint64_t copies = 0;
  int64_t copy_ns = 0;
  uint64_t copy_bytes = 0;
  uint64_t collectives = 0;
  int64_t collective_ns = 0;
  uint64_t peak_bytes = 0;
  // Time split over [0, end of the last GPU op of the run]: compute (kernels, library calls,
  // copies) and communication (NCCL) as unions; overlap is their intersection.
  int64_t compute_ns = 0;
  int64_t comm_ns = 0;
  int64_t overlap_ns = 0;
  int64_t exposed_comm_ns = 0;  // communication with no compute under it
  int64_t idle_ns = 0;          // nothing running
};

// One row of the per-collective table: an operation and size on communicators of one size.
struct CollectiveStats {
  std::string op;
  uint64_t bytes = 0;  // nccl-tests' S
  int nranks = 0;
  uint64_t count = 0;    // calls, counting each rank's call once
  int64_t total_ns = 0;  // sum over calls of the slowest rank's duration
  double algbw_gbs = 0;  // S / average time
  double busbw_gbs = 0;
  std::string algorithm;  // NCCL's choice ("simple" model, or "p2p" for send/recv-based ones)
  std::string protocol;
  int channels = 0;
};

struct KernelStats {
  std::string name;
  uint64_t count = 0;
  int64_t total_ns = 0;
  int64_t min_ns = 0;
  int64_t max_ns = 0;
  // Of total_ns: time from the kernel database, the library models and the generic fallback.
  int64_t database_ns = 0;
  int64_t library_ns = 0;
  int64_t triton_ns = 0;
  int64_t family_ns = 0;
  int64_t generic_ns = 0;
  // "database", "library", "triton", "family", "generic", or "mixed" when several contributed.
  std::string source() const;
};

struct RunStats {
  std::vector<GpuStats> gpus;                // only GPUs that did something or allocated memory
  std::vector<KernelStats> kernels;          // by total time, descending; ties by name
  std::vector<CollectiveStats> collectives;  // by total time, descending
  int64_t simulated_ns = 0;                  // GPU work and the ranks' last calls
  int64_t gpu_end_ns = 0;                    // end of the last GPU operation
  int64_t generic_kernel_ns = 0;             // simulated time from the generic fallback model
  int64_t database_kernel_ns = 0;            // from the kernel database
  int64_t library_kernel_ns = 0;             // from the library models (cuBLAS & co.)
  int64_t triton_kernel_ns = 0;              // from the Triton model (IR accesses, size args)
  int64_t family_kernel_ns = 0;              // from the ATen kernel-family models
  int64_t all_kernel_ns = 0;                 // kernels and library calls, every source
  // What compute/communication interference added (simcore/src/INTERFERENCE.md): to compute ops
  // that ran beside collectives, and to collectives beside memory-bound compute.
  int64_t compute_interference_ns = 0;
  int64_t collective_interference_ns = 0;
  // Kernels (not library calls) timed without a database entry: their count and time without one,
  // by that time, descending; ties by name.
  std::vector<KernelStats> kernels_without_db;
  int64_t total_op_ns = 0;
};

RunStats compute_stats(const Session& session, const SessionResult& result);

}  // namespace seer::rt
