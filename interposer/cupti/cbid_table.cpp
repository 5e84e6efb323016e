#include "cbid_table.h"

#include <string_view>
#include <unordered_map>

namespace seer::cupti {
namespace {

struct Entry {
  const char* name;
  uint32_t cbid;
};

// Every version of a call in header order: the newest (last) one wins.
constexpr Entry kRuntime[] = {
#include "cbid_runtime.inc"
};
constexpr Entry kDriver[] = {
#include "cbid_driver.inc"
};

struct Table {
  std::unordered_map<std::string_view, uint32_t> by_name;
  std::unordered_map<uint32_t, const char*> by_id;
  template <size_t N>
  explicit Table(const Entry (&entries)[N]) {
    for (const Entry& e : entries) {
      by_name[e.name] = e.cbid;
      by_id[e.cbid] = e.name;
    }
  }
};

const Table* table(CUpti_CallbackDomain domain) {
  static const Table runtime(kRuntime);
  static const Table driver(kDriver);
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) return &runtime;
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API) return &driver;
  return nullptr;
}

}  // namespace

int64_t callback_id(CUpti_CallbackDomain domain, const char* name) {
  const Table* t = table(domain);
  if (!t || !name) return -1;
  auto it = t->by_name.find(name);
  return it == t->by_name.end() ? -1 : it->second;
}

const char* callback_name(CUpti_CallbackDomain domain, uint32_t cbid) {
  const Table* t = table(domain);
  if (!t) return nullptr;
  auto it = t->by_id.find(cbid);
  return it == t->by_id.end() ? nullptr : it->second;
}

}  // namespace seer::cupti
