#pragma once

// The stand-in's communicators: a size and this process' rank in it, nothing shared with peers.

#include <cuda.h>
#include <nccl.h>

#include "../nccl/datatype_bytes.h"

struct ncclComm {
  int nranks = 1;
  int rank = 0;
  int device = 0;  // the current device when the communicator was created
  ncclResult_t async_error = ncclSuccess;
};

namespace seer::nccl_standin {

// Records `r` as the thread's last error (ncclGetLastError) and returns it.
ncclResult_t fail(ncclResult_t r, const char* message);

// The CUDA driver's entry point `name` (the program has loaded the driver by the time it makes
// a communicator; nothing here initializes CUDA).
void* driver(const char* name);

// The calling thread's current device (0 before CUDA is initialized).
int current_device();

// Enqueues a device-to-device copy of `bytes` on `stream` (nothing when 0 bytes or the same
// address); ncclUnhandledCudaError when the driver refuses it.
ncclResult_t local_copy(void* dst, const void* src, size_t bytes, cudaStream_t stream);

// The size of one element of `type`, 0 for an unknown type.
inline size_t type_bytes(ncclDataType_t type) { return nccl::datatype_bytes(type); }

}  // namespace seer::nccl_standin
