#pragma once

#include "seer/simcore/triton_model.h"
#include "wire.pb.h"

namespace seer::rt {

// The Triton model's view of a kernel the client described at registration.
sim::TritonKernel triton_kernel_of(const wire::TritonKernel& w);

}  // namespace seer::rt
