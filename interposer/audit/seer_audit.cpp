// LD_AUDIT module: makes the dynamic loader open Seer's replacement of a CUDA library even when a
// program names the real one by absolute path (dlopen("/usr/local/cuda/lib64/libcudart.so.13")),
// which an LD_PRELOAD soname match does not cover. See README.md.
//
// Runs inside the loader's audit namespace: libc only, no allocation after la_version.
#include <link.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define SEER_AUDIT_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

struct Redirect {
  const char* prefix;  // of the requested file's basename; ".so" keeps libcuda from libcudart
  const char* replacement;
  char path[PATH_MAX];  // $SEER_LIB_DIR/replacement if that file exists, else empty
};

Redirect g_redirects[] = {
    {"libcudart.so", "libcudart.so.13", ""},
    {"libnccl.so", "libnccl.so.2", ""},
    {"libcublasLt.so", "libcublasLt.so.13", ""},
    {"libcublas.so", "libcublas.so.13", ""},
    {"libnvidia-ml.so", "libnvidia-ml.so.1", ""},
    {"libcuda.so", "libcuda.so.1", ""},
    {"libnvToolsExt.so", "libnvToolsExt.so.1", ""},
    {"libcupti.so", "libcupti.so.13", ""},
    // cuDNN's sub-libraries (libcudnn_graph.so.9, libcudnn_ops.so.9, ...) start with "libcudnn_"
    // and are left alone: only the front library is replaced.
    {"libcudnn.so", "libcudnn.so.9", ""},
};

char g_seer_dir[PATH_MAX];  // canonical SEER_LIB_DIR, empty when unset or missing

// Set as la_objopen's cookie for objects loaded from SEER_LIB_DIR: their own searches are not
// redirected, so that Seer's libraries can open the real ones (live mode).
constexpr uintptr_t kSeerObject = 1;

void Init() {
  const char* dir = getenv("SEER_LIB_DIR");
  if (dir == nullptr || dir[0] == '\0' || realpath(dir, g_seer_dir) == nullptr) {
    g_seer_dir[0] = '\0';
    return;
  }
  for (Redirect& r : g_redirects) {
    int n = snprintf(r.path, sizeof r.path, "%s/%s", g_seer_dir, r.replacement);
    bool fits = n > 0 && n < static_cast<int>(sizeof r.path);
    if (!fits || access(r.path, R_OK) != 0) r.path[0] = '\0';
  }
}

bool InSeerDir(const char* file) {
  if (g_seer_dir[0] == '\0' || file == nullptr || file[0] == '\0') return false;
  char real[PATH_MAX];
  if (realpath(file, real) == nullptr) return false;
  size_t length = strlen(g_seer_dir);
  return strncmp(real, g_seer_dir, length) == 0 && real[length] == '/';
}

}  // namespace

SEER_AUDIT_EXPORT unsigned int la_version(unsigned int version) {
  Init();
  return version < LAV_CURRENT ? version : LAV_CURRENT;
}

SEER_AUDIT_EXPORT unsigned int la_objopen(link_map* map, Lmid_t lmid, uintptr_t* cookie) {
  if (InSeerDir(map->l_name)) *cookie = kSeerObject;
  return 0;  // no symbol-binding callbacks
}

// Called with LA_SER_ORIG and the name as requested first; a path returned then is opened as is.
SEER_AUDIT_EXPORT char* la_objsearch(const char* name, uintptr_t* cookie, unsigned int flag) {
  if (flag != LA_SER_ORIG || (cookie != nullptr && *cookie == kSeerObject)) {
    return const_cast<char*>(name);
  }
  const char* slash = strrchr(name, '/');
  const char* basename = slash != nullptr ? slash + 1 : name;
  for (Redirect& r : g_redirects) {
    if (strncmp(basename, r.prefix, strlen(r.prefix)) == 0) {
      return r.path[0] != '\0' ? r.path : const_cast<char*>(name);
    }
  }
  return const_cast<char*>(name);
}
