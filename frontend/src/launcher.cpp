#include "launcher.h"

#include <limits.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace seer::cli {

std::string library_dir() {
  if (const char* d = std::getenv("SEER_LIB_DIR"); d && *d) return d;
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) throw std::runtime_error("cannot find the seer executable");
  buf[n] = 0;
  const std::filesystem::path exe(buf);
  return (exe.parent_path().parent_path() / "lib").string();
}

std::string preload_value(const std::string& lib_dir, const char* existing) {
  std::string v;
  for (const char* lib : {"libseer_client.so", "libcudart.so.13", "libnccl.so.2", "libcublas.so.13",
                          "libcublasLt.so.13", "libcuda.so.1", "libnvToolsExt.so.1"}) {
    const std::string path = lib_dir + "/" + lib;
    if (!std::filesystem::exists(path)) continue;
    v += (v.empty() ? "" : ":") + path;
  }
  if (existing && *existing) v += std::string(":") + existing;
  return v;
}

pid_t launch(const std::vector<std::string>& argv, const std::string& socket_path,
             const std::string& lib_dir) {
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
  if (pid > 0) return pid;
  ::setpgid(0, 0);
  ::setenv("SEER_SOCKET", socket_path.c_str(), 1);
  ::setenv("SEER_LIB_DIR", lib_dir.c_str(), 1);
  ::setenv("LD_PRELOAD", preload_value(lib_dir, std::getenv("LD_PRELOAD")).c_str(), 1);
  // NVTX v3 (header-only) finds its tool through this variable; ours records the ranges.
  const std::string nvtx = lib_dir + "/libnvToolsExt.so.1";
  if (std::filesystem::exists(nvtx)) ::setenv("NVTX_INJECTION64_PATH", nvtx.c_str(), 1);
  const std::string audit = lib_dir + "/libseer_audit.so";
  if (std::filesystem::exists(audit) && !std::getenv("SEER_NO_AUDIT")) {
    const char* existing = std::getenv("LD_AUDIT");
    ::setenv("LD_AUDIT", (existing && *existing ? audit + ":" + existing : audit).c_str(), 1);
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  ::execvp(args[0], args.data());
  std::fprintf(stderr, "seer: cannot run '%s': %s\n", args[0], std::strerror(errno));
  ::_exit(127);
}

}  // namespace seer::cli
