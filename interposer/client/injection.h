#pragma once

namespace seer::client {

// What NVIDIA's driver does when CUDA initializes: loads the tool named by CUDA_INJECTION64_PATH
// (seer profile's recorder, Nsight tools) and calls its InitializeInjection. Once per process,
// after the process has joined the session, outside any lock of the core.
void load_injected_tool();

}  // namespace seer::client
