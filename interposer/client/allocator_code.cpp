#include "allocator_code.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdint>

namespace seer::client {
namespace {

struct Segment {
  uintptr_t begin = 0, end = 0;
  bool contains(uintptr_t a) const { return a >= begin && a < end; }
};

// The executable segments of the library that defines the malloc in use. Found once, when this
// library is loaded: preloads and the program's libraries are all mapped by then, and a malloc
// loaded later with dlopen cannot serve memory allocated before it.
constexpr int kMaxSegments = 8;
Segment g_segments[kMaxSegments];
int g_count = 0;

// The shared objects mapped at start-up, in lookup order, with their executable segments.
constexpr int kMaxObjects = 64;
struct Object {
  const char* name = nullptr;
  Segment segments[kMaxSegments];
  int count = 0;
};
Object g_objects[kMaxObjects];
int g_objects_count = 0;

int collect(dl_phdr_info* info, size_t, void*) {
  // The program itself (name "") may link a malloc statically: its own mutexes are the
  // program's, so it is never left out. Its address for malloc may also be a stub that only
  // jumps to the real one.
  if (!info->dlpi_name || !*info->dlpi_name) return 0;
  if (g_objects_count == kMaxObjects) return 1;
  Object& o = g_objects[g_objects_count++];
  o.name = info->dlpi_name;
  for (int i = 0; i < info->dlpi_phnum && o.count < kMaxSegments; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X)) continue;
    const uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
    o.segments[o.count++] = {begin, begin + ph.p_memsz};
  }
  return 0;
}

// The first object in lookup order whose own code holds the malloc it exports.
__attribute__((constructor)) void find_allocator_code() {
  dl_iterate_phdr(collect, nullptr);
  for (int i = 0; i < g_objects_count; ++i) {
    const Object& o = g_objects[i];
    void* handle = dlopen(o.name, RTLD_LAZY | RTLD_NOLOAD);
    if (!handle) continue;
    const auto f = reinterpret_cast<uintptr_t>(dlsym(handle, "malloc"));
    dlclose(handle);
    bool defines = false;
    for (int s = 0; s < o.count; ++s) defines = defines || o.segments[s].contains(f);
    if (!defines) continue;
    void* libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
    const bool is_libc = libc && dlsym(libc, "malloc") == reinterpret_cast<void*>(f);
    if (libc) dlclose(libc);
    if (is_libc) return;
    for (int s = 0; s < o.count; ++s) g_segments[g_count++] = o.segments[s];
    return;
  }
}

}  // namespace

bool in_allocator_code(const void* pc) {
  const auto a = reinterpret_cast<uintptr_t>(pc);
  for (int i = 0; i < g_count; ++i) {
    if (g_segments[i].contains(a)) return true;
  }
  return false;
}

}  // namespace seer::client
