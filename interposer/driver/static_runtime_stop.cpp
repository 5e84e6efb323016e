// The static-runtime trip-wire: a CUDA runtime linked statically (nvcc's default) talks to the
// driver through NVIDIA's private tables, which it asks for with cuGetExportTable; Seer cannot
// serve it, so the process stops with a message naming the object that called (README.md).
#include "static_runtime_stop.h"

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdio>
#include <cstring>

#include "static_runtime_exit.h"

namespace {

std::atomic<bool> g_stopping{false};

// The object file containing `address`, or nullptr for the main program.
const char* LibraryContaining(void* address) {
  Dl_info info;
  link_map* map = nullptr;
  if (dladdr1(address, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0) return nullptr;
  bool is_program = map == nullptr || map->l_prev == nullptr;  // the program heads the list
  return is_program ? nullptr : info.dli_fname;
}

const char* Basename(const char* path) {
  const char* slash = strrchr(path, '/');
  return slash != nullptr ? slash + 1 : path;
}

bool IsCudaRuntime(const char* path) { return strncmp(Basename(path), "libcudart.so", 12) == 0; }

// Sets `exit_code` and returns the length of the message.
int FormatMessage(char* message, size_t size, const char* function, void* caller, int* exit_code) {
  char program[PATH_MAX] = "this program";
  ssize_t n = readlink("/proc/self/exe", program, sizeof program - 1);
  if (n > 0) program[n] = '\0';
  const char* library = LibraryContaining(caller);
  char culprit[2 * PATH_MAX + 16];
  if (library == nullptr) {
    snprintf(culprit, sizeof culprit, "%s", program);
  } else {
    snprintf(culprit, sizeof culprit, "%s (loaded by %s)", library, program);
  }
  bool real_runtime = library != nullptr && IsCudaRuntime(library);
  *exit_code = real_runtime ? seer::kRealRuntimeExitCode : seer::kStaticRuntimeExitCode;
  const char* diagnosis =
      real_runtime ? "is NVIDIA's CUDA runtime, not Seer's replacement (are Seer's libcudart.so.13 "
                     "in LD_PRELOAD and its audit module in LD_AUDIT?)."
                   : "links the CUDA runtime statically (nvcc's default). Seer replaces the shared "
                     "CUDA runtime; rebuild it with 'nvcc -cudart shared' (or link -lcudart).";
  int length = snprintf(message, size,
                        "seer: %s %s\nseer: (it called %s of the CUDA driver; exit status %d)\n",
                        culprit, diagnosis, function, *exit_code);
  return std::clamp(length, 0, static_cast<int>(size) - 1);
}

void WriteToStderr(const char* text, int length) {
  while (length > 0) {
    ssize_t n = write(STDERR_FILENO, text, static_cast<size_t>(length));
    if (n <= 0) return;
    text += n;
    length -= static_cast<int>(n);
  }
}

}  // namespace

namespace seer::driver {

bool tolerates_missing_export_table(void* caller) {
  const char* library = LibraryContaining(caller);
  return library != nullptr && strncmp(Basename(library), "libnvrtc", 8) == 0;
}

[[noreturn]] void stop_static_runtime(const char* function, void* caller) {
  if (g_stopping.exchange(true)) {
    for (;;) pause();  // another thread is reporting and will end the process
  }
  char message[2 * PATH_MAX + 512];
  int exit_code = seer::kStaticRuntimeExitCode;
  int length = FormatMessage(message, sizeof message, function, caller, &exit_code);
  fflush(nullptr);  // keep the program's earlier output ahead of the message
  WriteToStderr(message, length);
  _exit(exit_code);
}

}  // namespace seer::driver
