#pragma once

// The cuDNN handle (struct cudnnContext, opaque to programs) and its registry.

#include <cudnn.h>

struct cudnnContext {
  cudaStream_t stream = nullptr;  // 0: the legacy default stream
  int device = 0;                 // current device at cudnnCreate
};

namespace seer::cudnn {

// The handle when it is live (created and not destroyed), else nullptr.
cudnnContext* live(cudnnHandle_t h);

}  // namespace seer::cudnn
