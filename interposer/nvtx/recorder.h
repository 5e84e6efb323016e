#pragma once

// What every NVTX entry point does, whichever way it was reached (the classic libnvToolsExt
// symbols or NVTX v3's injection table): turn the call into an Nvtx record at the thread's clock.

#include <cstdint>
#include <string>

#include "wire.pb.h"

namespace seer::nvtx {

// A domain as the program sees it (nvtxDomainHandle_t points at one). Never freed.
struct Domain {
  std::string name;
};

Domain* create_domain(std::string name);
// A registered string (nvtxStringHandle_t points at one). Never freed.
const std::string* register_string(std::string text);

// Push/pop keep a per-thread, per-domain depth, as NVTX defines their return values.
int push(const Domain* domain, std::string message, uint32_t category);
int pop(const Domain* domain);
void mark(const Domain* domain, std::string message, uint32_t category);
uint64_t start(const Domain* domain, std::string message, uint32_t category);
void end(const Domain* domain, uint64_t id);
void name_thread(std::string name);

std::string narrow(const wchar_t* text);

}  // namespace seer::nvtx
