// The NVTX C API as exported by the classic libnvToolsExt.so.1: programs linked against it call
// these directly; NVTX v3 programs reach the same functions through injection.cpp.

#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "recorder.h"

#define SEER_NVTX_API extern "C" __attribute__((visibility("default")))

namespace {

using seer::nvtx::Domain;

const Domain* domain_of(nvtxDomainHandle_t d) { return reinterpret_cast<const Domain*>(d); }

std::string message_of(const nvtxEventAttributes_t* a) {
  if (!a || a->version < 1) return {};
  switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
      return a->message.ascii ? a->message.ascii : "";
    case NVTX_MESSAGE_TYPE_UNICODE:
      return seer::nvtx::narrow(a->message.unicode);
    case NVTX_MESSAGE_TYPE_REGISTERED:
      return a->message.registered ? *reinterpret_cast<const std::string*>(a->message.registered)
                                   : std::string();
    default:
      return {};
  }
}

uint32_t category_of(const nvtxEventAttributes_t* a) {
  return a && a->version >= 1 ? a->category : 0;
}

std::string text(const char* s) { return s ? s : ""; }

}  // namespace

SEER_NVTX_API void nvtxInitialize(const void*) {}

SEER_NVTX_API void nvtxDomainMarkEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  seer::nvtx::mark(domain_of(d), message_of(a), category_of(a));
}
SEER_NVTX_API void nvtxMarkEx(const nvtxEventAttributes_t* a) {
  seer::nvtx::mark(nullptr, message_of(a), category_of(a));
}
SEER_NVTX_API void nvtxMarkA(const char* m) { seer::nvtx::mark(nullptr, text(m), 0); }
SEER_NVTX_API void nvtxMarkW(const wchar_t* m) {
  seer::nvtx::mark(nullptr, seer::nvtx::narrow(m), 0);
}

SEER_NVTX_API nvtxRangeId_t nvtxDomainRangeStartEx(nvtxDomainHandle_t d,
                                                   const nvtxEventAttributes_t* a) {
  return seer::nvtx::start(domain_of(d), message_of(a), category_of(a));
}
SEER_NVTX_API nvtxRangeId_t nvtxRangeStartEx(const nvtxEventAttributes_t* a) {
  return seer::nvtx::start(nullptr, message_of(a), category_of(a));
}
SEER_NVTX_API nvtxRangeId_t nvtxRangeStartA(const char* m) {
  return seer::nvtx::start(nullptr, text(m), 0);
}
SEER_NVTX_API nvtxRangeId_t nvtxRangeStartW(const wchar_t* m) {
  return seer::nvtx::start(nullptr, seer::nvtx::narrow(m), 0);
}
SEER_NVTX_API void nvtxDomainRangeEnd(nvtxDomainHandle_t d, nvtxRangeId_t id) {
  seer::nvtx::end(domain_of(d), id);
}
SEER_NVTX_API void nvtxRangeEnd(nvtxRangeId_t id) { seer::nvtx::end(nullptr, id); }

SEER_NVTX_API int nvtxDomainRangePushEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  return seer::nvtx::push(domain_of(d), message_of(a), category_of(a));
}
SEER_NVTX_API int nvtxRangePushEx(const nvtxEventAttributes_t* a) {
  return seer::nvtx::push(nullptr, message_of(a), category_of(a));
}
SEER_NVTX_API int nvtxRangePushA(const char* m) { return seer::nvtx::push(nullptr, text(m), 0); }
SEER_NVTX_API int nvtxRangePushW(const wchar_t* m) {
  return seer::nvtx::push(nullptr, seer::nvtx::narrow(m), 0);
}
SEER_NVTX_API int nvtxDomainRangePop(nvtxDomainHandle_t d) { return seer::nvtx::pop(domain_of(d)); }
SEER_NVTX_API int nvtxRangePop(void) { return seer::nvtx::pop(nullptr); }

SEER_NVTX_API nvtxResourceHandle_t nvtxDomainResourceCreate(nvtxDomainHandle_t,
                                                            nvtxResourceAttributes_t*) {
  static int resource;  // resources only name things; a non-null handle is all callers need
  return reinterpret_cast<nvtxResourceHandle_t>(&resource);
}
SEER_NVTX_API void nvtxDomainResourceDestroy(nvtxResourceHandle_t) {}
SEER_NVTX_API void nvtxDomainNameCategoryA(nvtxDomainHandle_t, uint32_t, const char*) {}
SEER_NVTX_API void nvtxDomainNameCategoryW(nvtxDomainHandle_t, uint32_t, const wchar_t*) {}
SEER_NVTX_API void nvtxNameCategoryA(uint32_t, const char*) {}
SEER_NVTX_API void nvtxNameCategoryW(uint32_t, const wchar_t*) {}

// Only a thread naming itself can be attributed: records carry the calling thread.
SEER_NVTX_API void nvtxNameOsThreadA(uint32_t tid, const char* name) {
  if (tid == static_cast<uint32_t>(::syscall(SYS_gettid))) seer::nvtx::name_thread(text(name));
}
SEER_NVTX_API void nvtxNameOsThreadW(uint32_t tid, const wchar_t* name) {
  if (tid == static_cast<uint32_t>(::syscall(SYS_gettid)))
    seer::nvtx::name_thread(seer::nvtx::narrow(name));
}

SEER_NVTX_API nvtxStringHandle_t nvtxDomainRegisterStringA(nvtxDomainHandle_t, const char* s) {
  return reinterpret_cast<nvtxStringHandle_t>(
      const_cast<std::string*>(seer::nvtx::register_string(text(s))));
}
SEER_NVTX_API nvtxStringHandle_t nvtxDomainRegisterStringW(nvtxDomainHandle_t, const wchar_t* s) {
  return reinterpret_cast<nvtxStringHandle_t>(
      const_cast<std::string*>(seer::nvtx::register_string(seer::nvtx::narrow(s))));
}
SEER_NVTX_API nvtxDomainHandle_t nvtxDomainCreateA(const char* name) {
  return reinterpret_cast<nvtxDomainHandle_t>(seer::nvtx::create_domain(text(name)));
}
SEER_NVTX_API nvtxDomainHandle_t nvtxDomainCreateW(const wchar_t* name) {
  return reinterpret_cast<nvtxDomainHandle_t>(seer::nvtx::create_domain(seer::nvtx::narrow(name)));
}
SEER_NVTX_API void nvtxDomainDestroy(nvtxDomainHandle_t) {}
