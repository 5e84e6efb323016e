#pragma once

// How Seer's cuDNN talks to the session: joining it, charging host time, and appending a call's
// ops to a stream (each a wire::LibraryCall record, like cuBLAS calls).

#include <cudnn.h>

#include <vector>

#include "types.h"

namespace seer::cudnn {

// Joins the session on first use; false when the process is not under `seer run`.
bool joined();

// Appends `ops` in order to the application stream `stream` (0: the legacy default stream of the
// current device), charging the calling thread one kernel launch per op. NOT_INITIALIZED outside
// a session, EXECUTION_FAILED when the stream is not live.
cudnnStatus_t enqueue(const void* stream, const std::vector<LibraryOp>& ops);

// Charges the calling thread the host cost of a call that launches nothing.
void charge_host_call();

// Records the text cudnnGetLastErrorString returns (per thread, like cuDNN), and returns `s`.
cudnnStatus_t fail(cudnnStatus_t s, const char* what);
const char* last_error();
void clear_last_error();

}  // namespace seer::cudnn
