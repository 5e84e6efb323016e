#include "launcher.h"

#include <limits.h>
#include <signal.h>
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
  // The replacements that exist in this build (NVML, cuDNN and CUPTI may be absent).
  for (const char* lib : {"libseer_client.so", "libcudart.so.13", "libnccl.so.2", "libcublas.so.13",
                          "libcublasLt.so.13", "libcuda.so.1", "libnvToolsExt.so.1",
                          "libnvidia-ml.so.1", "libcudnn.so.9", "libcupti.so.13"}) {
    const std::string path = lib_dir + "/" + lib;
    if (!std::filesystem::exists(path)) continue;
    v += (v.empty() ? "" : ":") + path;
  }
  if (existing && *existing) v += std::string(":") + existing;
  return v;
}

namespace {

volatile sig_atomic_t g_command_group = 0;
bool g_terminal_handed_over = false;

// Makes `group` the foreground process group of the terminal on stdin. Called by both the
// parent and the child (whichever runs first), as shells do.
void give_terminal_to(pid_t group) {
  struct sigaction ignore {};
  struct sigaction old {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGTTOU, &ignore, &old);
  ::tcsetpgrp(STDIN_FILENO, group);
  ::sigaction(SIGTTOU, &old, nullptr);
}

void forward(int sig) {
  if (g_command_group > 0) ::kill(-g_command_group, sig);
}

}  // namespace

pid_t launch(const std::vector<std::string>& argv, const std::string& socket_path,
             const std::string& lib_dir) {
  const bool foreground = ::isatty(STDIN_FILENO) && ::tcgetpgrp(STDIN_FILENO) == ::getpgrp();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
  if (pid > 0) {
    ::setpgid(pid, pid);
    if (foreground) {
      give_terminal_to(pid);
      g_terminal_handed_over = true;
    }
    return pid;
  }
  ::setpgid(0, 0);
  if (foreground) give_terminal_to(::getpid());
  ::setenv("SEER_SOCKET", socket_path.c_str(), 1);
  ::setenv("SEER_LIB_DIR", lib_dir.c_str(), 1);
  ::setenv("LD_PRELOAD", preload_value(lib_dir, std::getenv("LD_PRELOAD")).c_str(), 1);
  // Triton links its launcher against -l:libcuda.so.1 from this directory (it would otherwise
  // look for the driver with ldconfig).
  if (std::filesystem::exists(lib_dir + "/libcuda.so.1")) {
    ::setenv("TRITON_LIBCUDA_PATH", lib_dir.c_str(), 1);
  }
  // Python start-up hook (interposer/python): object collectives that need no kernel results.
  const std::string python = lib_dir + "/python";
  if (std::filesystem::exists(python + "/sitecustomize.py")) {
    const char* existing = std::getenv("PYTHONPATH");
    ::setenv("PYTHONPATH", (existing && *existing ? python + ":" + existing : python).c_str(), 1);
  }
  // NVTX v3 (header-only) finds its tool through this variable; ours records the ranges.
  const std::string nvtx = lib_dir + "/libnvToolsExt.so.1";
  if (std::filesystem::exists(nvtx)) ::setenv("NVTX_INJECTION64_PATH", nvtx.c_str(), 1);
  const std::string audit = lib_dir + "/libseer_audit.so";
  if (std::filesystem::exists(audit) && !std::getenv("SEER_NO_AUDIT")) {
    const char* existing = std::getenv("LD_AUDIT");
    ::setenv("LD_AUDIT", (existing && *existing ? audit + ":" + existing : audit).c_str(), 1);
    // The audit module's namespace takes most of the static TLS glibc keeps for libraries loaded
    // later; a preloaded malloc (jemalloc) then fails to load with "cannot allocate memory in
    // static TLS block". More room, unless the user set it.
    const char* tunables = std::getenv("GLIBC_TUNABLES");
    const std::string user = tunables ? tunables : "";
    if (user.find("glibc.rtld.optional_static_tls") == std::string::npos) {
      const std::string room = "glibc.rtld.optional_static_tls=16384";
      ::setenv("GLIBC_TUNABLES", (user.empty() ? room : user + ":" + room).c_str(), 1);
    }
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  ::execvp(args[0], args.data());
  std::fprintf(stderr, "seer: cannot run '%s': %s\n", args[0], std::strerror(errno));
  ::_exit(127);
}

void forward_signals_to(pid_t group) {
  g_command_group = group;
  struct sigaction action {};
  action.sa_handler = forward;
  ::sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) ::sigaction(sig, &action, nullptr);
}

void take_back_terminal() {
  if (!g_terminal_handed_over) return;
  give_terminal_to(::getpgrp());
  g_terminal_handed_over = false;
}

}  // namespace seer::cli
