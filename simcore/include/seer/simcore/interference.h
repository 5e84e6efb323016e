#pragma once

// Compute/communication interference on one GPU (simcore/src/INTERFERENCE.md): NCCL's kernels
// hold SMs (one CTA per channel) and HBM bandwidth while they run, so a kernel that starts
// beside them sees a smaller GPU; and a collective whose GPU streams memory-bound compute at the
// same time gets less HBM bandwidth.

#include "seer/simcore/gpu_spec.h"
#include "seer/simcore/op.h"
#include "seer/simcore/time.h"

namespace seer::sim {

// What a GPU's running collectives take from it.
struct CommLoad {
  int channels = 0;            // NCCL CTAs, one SM each
  double hbm_bytes_per_s = 0;  // their device-memory traffic
  bool any() const { return channels > 0 || hbm_bytes_per_s > 0; }
};

// A kernel never gets less than this share of the GPU's HBM bandwidth.
inline constexpr double kMinHbmShare = 0.1;

// The GPU as a compute op starting beside `load` sees it: SMs less the channels (at least one),
// every compute peak scaled by the SMs left, HBM bandwidth less the collectives' traffic.
GpuSpec contended_spec(const GpuSpec& gpu, const CommLoad& load);

// Device-memory traffic per second of one rank's collective that moves `part` in `duration`
// (latency and data): the bytes each rank puts on its links (ring volume: 2(n-1)/n x S for
// all-reduce, (n-1)/n x the gathered size for all-gather and reduce-scatter, S otherwise) times
// the HBM accesses per link byte, 3 for reductions (sent data read; received data read with the
// local operand and the result written) and 2 for copies (read on send, write on receive).
double collective_hbm_rate(const CollPart& part, int nranks, Time duration);

// How much longer a collective takes when its GPU's compute op streams `compute_rate` bytes/s
// of HBM while the collective needs `collective_rate`: 1 while both fit in the GPU's bandwidth,
// else their sum over the bandwidth (both are slowed alike, the collective by this factor).
double collective_stretch(const GpuSpec& gpu, double collective_rate, double compute_rate);

}  // namespace seer::sim
