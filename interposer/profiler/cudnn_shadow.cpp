#include "cudnn_shadow.h"

#include <cudnn.h>

#include <mutex>
#include <unordered_map>

#include "descriptor.h"

namespace seer::profiler::cudnn_shadow {

namespace be = seer::cudnn::backend;

namespace {

std::mutex g_mu;
std::unordered_map<void*, be::Descriptor*>& shadows() {
  static auto* m = new std::unordered_map<void*, be::Descriptor*>();
  return *m;
}

be::Descriptor* find(void* real) {
  auto it = shadows().find(real);
  return it == shadows().end() ? nullptr : it->second;
}

void drop(void* real) {
  auto it = shadows().find(real);
  if (it == shadows().end()) return;
  be::destroy(it->second);
  shadows().erase(it);
}

}  // namespace

void created(void* real, int type) {
  std::lock_guard<std::mutex> lock(g_mu);
  drop(real);  // the real library may hand out a destroyed descriptor's address again
  if (be::Descriptor* d = be::create(type)) shadows()[real] = d;
}

void destroyed(void* real) {
  std::lock_guard<std::mutex> lock(g_mu);
  drop(real);
}

void initialized(void* real) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (be::Descriptor* d = find(real)) {
    const int type = d->type;
    *d = be::Descriptor();
    d->type = type;
  }
}

void set(void* real, int name, int type, int64_t count, const void* elements) {
  std::lock_guard<std::mutex> lock(g_mu);
  be::Descriptor* d = find(real);
  if (!d) return;
  if (type != CUDNN_TYPE_BACKEND_DESCRIPTOR || count <= 0 || !elements) {
    be::set_attribute(*d, name, type, count, elements);
    return;
  }
  // Descriptor-valued: the shadows of the referenced descriptors (a reference without one makes
  // Seer's store refuse the attribute, so the plan is not named).
  std::vector<void*> refs(static_cast<size_t>(count));
  const auto* handles = static_cast<void* const*>(elements);
  for (int64_t i = 0; i < count; ++i) refs[static_cast<size_t>(i)] = find(handles[i]);
  be::set_attribute(*d, name, type, count, refs.data());
}

void got(void* real, int name, int type, int64_t filled, void* const* elements) {
  if (type != CUDNN_TYPE_BACKEND_DESCRIPTOR || filled <= 0 || !elements) return;
  std::lock_guard<std::mutex> lock(g_mu);
  const be::Descriptor* d = find(real);
  if (!d || !d->finalized) return;
  const std::vector<be::Snapshot>& values = d->descriptors(name);
  if (values.empty()) return;
  for (int64_t i = 0; i < filled; ++i) {
    be::Descriptor* target = find(elements[i]);
    const be::Descriptor& source =
        *values[static_cast<size_t>(i) < values.size() ? static_cast<size_t>(i) : 0];
    if (target && target->type == source.type) *target = source;
  }
}

void finalized(void* real) {
  std::lock_guard<std::mutex> lock(g_mu);
  be::Descriptor* d = find(real);
  if (!d || d->finalized) return;
  if (be::finalize(*d) != CUDNN_STATUS_SUCCESS) d->finalized = true;
}

std::vector<seer::cudnn::LibraryOp> plan_ops(void* real_plan) {
  std::lock_guard<std::mutex> lock(g_mu);
  const be::Descriptor* d = find(real_plan);
  if (!d || d->type != CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR) return {};
  return d->ops;
}

size_t size() {
  std::lock_guard<std::mutex> lock(g_mu);
  return shadows().size();
}

}  // namespace seer::profiler::cudnn_shadow
