#pragma once

#include "seer/simcore/time.h"

namespace seer::sim {

// Modeled host CPU cost of each intercepted call, added to the calling thread's clock in both
// host-time modes (in `measured` mode the thread's CPU time between calls is added as well).
// Starting points from CUDA launch-overhead measurements on x86 hosts; documented in README.md.
struct HostCosts {
  Time launch = 2000;        // cudaLaunchKernel / <<<>>>
  Time memcpy_async = 2000;  // cudaMemcpyAsync, cudaMemsetAsync
  Time memcpy_sync = 3000;   // issuing a blocking cudaMemcpy / cudaMemset (plus the wait)
  Time event_record = 500;
  Time stream_wait = 500;
  Time sync_return = 1000;  // from GPU completion to the blocked host thread returning
  Time query = 300;         // cudaStreamQuery / cudaEventQuery
  Time malloc = 10000;
  Time free = 10000;
  Time other_call = 200;   // every other runtime call
  Time clock_read = 20;    // each clock_gettime/gettimeofday/time read
  double cpu_scale = 1.0;  // measured mode: host CPU time is multiplied by this
  // Modeled mode, processes running PyTorch: CPU time of Python, the dispatcher and autograd per
  // launched operation (kernel, library call, memcpy/memset, collective); HOST_CPU.md.
  Time framework_op = 0;
};

}  // namespace seer::sim
