#include "recorder.h"

#include <atomic>
#include <deque>
#include <map>
#include <mutex>

#include "core.h"

namespace seer::nvtx {
namespace {

using client::ApiCall;
using client::Core;
using client::PodRecord;

std::mutex g_registry_mu;
std::deque<Domain>& domains() {
  static auto* d = new std::deque<Domain>();  // handles stay valid until exit
  return *d;
}
std::deque<std::string>& strings() {
  static auto* s = new std::deque<std::string>();
  return *s;
}

std::atomic<uint64_t> g_next_range_id{1};

thread_local std::map<const Domain*, int> t_depth;

const std::string& domain_name(const Domain* d) {
  static const std::string kDefault;
  return d ? d->name : kDefault;
}

void emit(wire::Nvtx::Kind kind, const Domain* domain, std::string message, uint64_t id,
          uint32_t category) {
  Core& core = Core::instance();
  if (!core.ensure_joined()) return;
  ApiCall call(core, core.costs().other_call());
  auto* n = new wire::Nvtx();
  n->set_kind(kind);
  n->set_message(std::move(message));
  n->set_domain(domain_name(domain));
  n->set_id(id);
  n->set_category(category);
  PodRecord r;
  r.type = PodRecord::kNvtx;
  r.t = call.ts().clock.load(std::memory_order_relaxed);
  r.nvtx = n;
  core.add_record(call.ts(), r);
}

void append_utf8(std::string& out, uint32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x110000) {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += '?';
  }
}

}  // namespace

Domain* create_domain(std::string name) {
  std::lock_guard<std::mutex> lock(g_registry_mu);
  domains().push_back(Domain{std::move(name)});
  return &domains().back();
}

const std::string* register_string(std::string text) {
  std::lock_guard<std::mutex> lock(g_registry_mu);
  strings().push_back(std::move(text));
  return &strings().back();
}

int push(const Domain* domain, std::string message, uint32_t category) {
  emit(wire::Nvtx::PUSH, domain, std::move(message), 0, category);
  return t_depth[domain]++;
}

int pop(const Domain* domain) {
  int& depth = t_depth[domain];
  if (depth == 0) return -1;  // NVTX: a pop without a push is an error the caller can see
  emit(wire::Nvtx::POP, domain, {}, 0, 0);
  return --depth;
}

void mark(const Domain* domain, std::string message, uint32_t category) {
  emit(wire::Nvtx::MARK, domain, std::move(message), 0, category);
}

uint64_t start(const Domain* domain, std::string message, uint32_t category) {
  const uint64_t id = g_next_range_id.fetch_add(1, std::memory_order_relaxed);
  emit(wire::Nvtx::START, domain, std::move(message), id, category);
  return id;
}

void end(const Domain* domain, uint64_t id) { emit(wire::Nvtx::END, domain, {}, id, 0); }

void name_thread(std::string name) {
  emit(wire::Nvtx::THREAD_NAME, nullptr, std::move(name), 0, 0);
}

std::string narrow(const wchar_t* text) {
  std::string out;
  if (!text) return out;
  for (; *text; ++text) append_utf8(out, static_cast<uint32_t>(*text));
  return out;
}

}  // namespace seer::nvtx
