#include "stack_trace.h"

#define UNW_LOCAL_ONLY
#include <cxxabi.h>
#include <dlfcn.h>
#include <libunwind.h>

#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace seer {
namespace {

// libunwind.so.8 also defines _Unwind_RaiseException & co. and a weak backtrace(). Linked as a
// dependency of a preloaded library it would sit in the global scope ahead of libgcc_s and take
// over C++ exception unwinding in every process (seen with LD_DEBUG=bindings). Opening it with
// RTLD_LOCAL at the first report keeps those definitions private.
constexpr char kLibunwindSoname[] = "libunwind.so.8";
constexpr int kMaxNameChars = 200;

// libunwind's API names are macros for architecture-prefixed symbols (_ULx86_64_step, ...).
#define SEER_STRINGIFY(x) #x
#define SEER_SYMBOL_NAME(x) SEER_STRINGIFY(x)

struct Libunwind {
  decltype(&unw_tdep_getcontext) getcontext = nullptr;
  decltype(&unw_init_local) init_local = nullptr;
  decltype(&unw_step) step = nullptr;
  decltype(&unw_get_reg) get_reg = nullptr;
  decltype(&unw_get_proc_name) get_proc_name = nullptr;
  decltype(&unw_get_proc_info) get_proc_info = nullptr;
  bool loaded = false;
};

template <typename Function>
bool Resolve(void* handle, const char* name, Function* function) {
  *function = reinterpret_cast<Function>(dlsym(handle, name));
  return *function != nullptr;
}

Libunwind LoadLibunwind() {
  Libunwind lib;
  void* handle = dlopen(kLibunwindSoname, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return lib;
  lib.loaded = Resolve(handle, SEER_SYMBOL_NAME(unw_tdep_getcontext), &lib.getcontext) &&
               Resolve(handle, SEER_SYMBOL_NAME(unw_init_local), &lib.init_local) &&
               Resolve(handle, SEER_SYMBOL_NAME(unw_step), &lib.step) &&
               Resolve(handle, SEER_SYMBOL_NAME(unw_get_reg), &lib.get_reg) &&
               Resolve(handle, SEER_SYMBOL_NAME(unw_get_proc_name), &lib.get_proc_name) &&
               Resolve(handle, SEER_SYMBOL_NAME(unw_get_proc_info), &lib.get_proc_info);
  return lib;
}

const Libunwind& GetLibunwind() {
  static const Libunwind lib = LoadLibunwind();
  return lib;
}

class Writer {
 public:
  Writer(char* buf, size_t size) : buf_(buf), size_(size) {
    if (size_ > 0) buf_[0] = '\0';
  }

  __attribute__((format(printf, 2, 3))) void Append(const char* format, ...) {
    if (len_ + 1 >= size_) return;
    va_list args;
    va_start(args, format);
    int n = vsnprintf(buf_ + len_, size_ - len_, format, args);
    va_end(args);
    if (n > 0) len_ = std::min(len_ + static_cast<size_t>(n), size_ - 1);
  }

  size_t length() const { return len_; }

 private:
  char* buf_;
  size_t size_;
  size_t len_ = 0;
};

const void* ObjectBase(uintptr_t pc) {
  Dl_info info;
  return dladdr(reinterpret_cast<void*>(pc), &info) != 0 ? info.dli_fbase : nullptr;
}

// `name` and `offset` come from libunwind (which also sees static functions); without them the
// dynamic symbol table is used through dladdr.
void AppendFrame(Writer& out, int index, uintptr_t pc, const char* name, uintptr_t offset) {
  Dl_info info = {};
  bool found = dladdr(reinterpret_cast<void*>(pc), &info) != 0;
  if (name == nullptr && found && info.dli_sname != nullptr) {
    name = info.dli_sname;
    offset = pc - reinterpret_cast<uintptr_t>(info.dli_saddr);
  }
  out.Append("  #%d 0x%" PRIxPTR " ", index, pc);
  if (name != nullptr) {
    int status = -1;
    char* demangled = abi::__cxa_demangle(name, nullptr, nullptr, &status);
    out.Append("%.*s+0x%" PRIxPTR " ", kMaxNameChars, status == 0 ? demangled : name, offset);
    free(demangled);
  } else {
    out.Append("?? ");
  }
  bool has_object = found && info.dli_fname != nullptr && info.dli_fname[0] != '\0';
  out.Append("(%s)\n", has_object ? info.dli_fname : "?");
}

// libunwind names the nearest preceding symbol, which in a stripped object (libc) is often
// another function: keep the name only if it starts where the frame's unwind info says.
const char* ProcName(const Libunwind& lib, unw_cursor_t& cursor, unw_word_t pc, char* name,
                     size_t size, unw_word_t* offset) {
  unw_proc_info_t info;
  if (lib.get_proc_name(&cursor, name, size, offset) != 0) return nullptr;
  if (lib.get_proc_info(&cursor, &info) != 0 || pc - *offset != info.start_ip) return nullptr;
  return name;
}

}  // namespace

size_t FormatCallerStack(char* buf, size_t size, void* fallback_pc, int max_frames) {
  Writer out(buf, size);
  const void* own_base = ObjectBase(reinterpret_cast<uintptr_t>(&FormatCallerStack));
  const Libunwind& lib = GetLibunwind();
  int printed = 0;
  unw_context_t context;
  unw_cursor_t cursor;
  if (lib.loaded && lib.getcontext(&context) == 0 && lib.init_local(&cursor, &context) == 0) {
    bool outside = false;
    char name[512];
    unw_word_t offset = 0;
    do {
      unw_word_t pc = 0;
      if (lib.get_reg(&cursor, UNW_REG_IP, &pc) != 0 || pc == 0) break;
      outside = outside || ObjectBase(pc) != own_base;
      if (!outside) continue;
      const char* proc_name = ProcName(lib, cursor, pc, name, sizeof name, &offset);
      AppendFrame(out, printed++, pc, proc_name, offset);
    } while (printed < max_frames && lib.step(&cursor) > 0);
  }
  if (printed == 0) AppendFrame(out, 0, reinterpret_cast<uintptr_t>(fallback_pc), nullptr, 0);
  return out.length();
}

}  // namespace seer
