#pragma once

// Destructors of CUDA user objects (cudaUserObjectCreate) whose last reference is gone. CUDA
// runs them asynchronously on an internal thread, at a time it does not specify, and not at all
// when the process exits first. Running them at once, inside the call that dropped the reference,
// differs from that in two ways: a destructor that takes a lock its caller holds deadlocks, and a
// graph destroyed while the interpreter tears down calls back into objects already freed
// (PyTorch's ProcessGroupNCCL::graphCleanupCallback after destroy_process_group). Here they wait
// until the program next synchronizes or launches a graph, then run on a thread of their own.

namespace seer::client {

void defer_user_object_destructor(void (*destroy)(void*), void* ptr);
// A point where CUDA would have made progress: hands the deferred destructors to their thread.
void release_user_object_destructors();

}  // namespace seer::client
