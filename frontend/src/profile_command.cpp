#include "profile_command.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <thread>

#include "launcher.h"
#include "seer/runtime/kernel_db.h"
#include "seer/runtime/profile_records.h"
#include "seer/simcore/gpu_spec.h"

namespace seer::cli {
namespace {

namespace fs = std::filesystem;

constexpr int kExitUsage = 2;

// NVIDIA's CUPTI, for programs that have not loaded one by the time CUDA initializes.
std::string find_cupti() {
  std::vector<std::string> roots;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    if (const char* v = std::getenv(var); v && *v) roots.emplace_back(v);
  }
  roots.emplace_back("/usr/local/cuda");
  for (const std::string& root : roots) {
    for (const char* sub : {"/extras/CUPTI/lib64/libcupti.so.13", "/lib64/libcupti.so.13"}) {
      std::error_code ec;
      if (fs::exists(root + sub, ec)) return root + sub;
    }
  }
  return {};
}

struct Progress {
  uintmax_t lines = 0;
  size_t files = 0;
};

Progress progress_of(const std::string& dir) {
  Progress p;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    ++p.files;
    p.lines += entry.file_size(ec) / 64;  // a record line is about 64 bytes or more
  }
  return p;
}

// `standin`: the NCCL stand-in's path, or empty.
pid_t start(const std::vector<std::string>& command, const std::string& recorder,
            const std::string& standin, const std::string& dir) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  ::setenv("CUDA_INJECTION64_PATH", recorder.c_str(), 1);
  // Preloaded too, so that its cuBLAS and cuDNN wrappers come before those libraries. The NCCL
  // stand-in comes first of all: it is the first libnccl.so.2 loaded, which the program's own
  // dependency on NCCL then names, and its symbols come before any other NCCL's (under `seer
  // run`, Seer's, preloaded after it).
  const char* preload = std::getenv("LD_PRELOAD");
  std::string libraries = standin.empty() ? recorder : standin + ":" + recorder;
  if (preload && *preload) libraries += std::string(":") + preload;
  ::setenv("LD_PRELOAD", libraries.c_str(), 1);
  ::setenv("SEER_PROFILE_DIR", dir.c_str(), 1);
  if (const std::string cupti = find_cupti();
      !cupti.empty() && !std::getenv("SEER_PROFILE_CUPTI")) {
    ::setenv("SEER_PROFILE_CUPTI", cupti.c_str(), 1);
  }
  std::vector<char*> args;
  for (const std::string& a : command) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  ::signal(SIGINT, SIG_DFL);
  ::signal(SIGQUIT, SIG_DFL);
  ::execvp(args[0], args.data());
  std::fprintf(stderr, "seer profile: cannot run '%s': %s\n", args[0], std::strerror(errno));
  ::_exit(127);
}

// Template-heavy kernel names run to thousands of characters; the summary shows their start.
std::string shortened(const std::string& name, size_t max = 120) {
  return name.size() <= max ? name : name.substr(0, max - 3) + "...";
}

std::string human_bytes(uint64_t b) {
  char buf[32];
  if (b >= (1ull << 30)) {
    std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(b) / (1ull << 30));
  } else if (b >= (1ull << 20)) {
    std::snprintf(buf, sizeof buf, "%.2f MiB", static_cast<double>(b) / (1ull << 20));
  } else {
    std::snprintf(buf, sizeof buf, "%" PRIu64 " B", b);
  }
  return buf;
}

void print_summary(const rt::ProfileRecords& records, const rt::KernelDb& recorded,
                   const std::string& out, size_t before, size_t after) {
  std::printf("seer profile: %zu process(es), %" PRIu64
              " kernel launches, %zu cuBLAS calls, %zu cuDNN calls, %.3f ms of kernel time\n",
              records.processes(), records.kernel_launches(), records.library_calls("cublas"),
              records.library_calls("cudnn"), static_cast<double>(records.kernel_ns()) / 1e6);
  for (const std::string& name : records.device_names())
    std::printf("  device: %s\n", name.c_str());
  for (const auto& [kind, c] : records.copies()) {
    std::printf("  memcpy %-5s %8" PRIu64 " copies, %s, %.3f ms\n", kind.c_str(), c.count,
                human_bytes(c.bytes).c_str(), static_cast<double>(c.total_ns) / 1e6);
  }
  if (records.memsets().count) {
    std::printf("  memset       %8" PRIu64 " sets, %s, %.3f ms\n", records.memsets().count,
                human_bytes(records.memsets().bytes).c_str(),
                static_cast<double>(records.memsets().total_ns) / 1e6);
  }
  const auto top = records.top_kernels(10);
  if (!top.empty()) std::printf("  top kernels (total ms, launches, name):\n");
  for (const rt::ProfileKernelTotal& k : top) {
    std::printf("  %10.3f %8" PRIu64 "  %s\n", static_cast<double>(k.total_ns) / 1e6, k.launches,
                shortened(k.kernel).c_str());
  }
  std::printf("seer profile: %zu database entries recorded; %s now holds %zu (%zu before)\n",
              recorded.size(), out.c_str(), after, before);
}

}  // namespace

ProfileCommand::ProfileCommand(CLI::App& app) {
  profile_ = app.add_subcommand(
      "profile",
      "Run a command on this machine's real GPU with NVIDIA's libraries and record its kernels "
      "into the kernel database: seer profile [--out DB] [--gpu-model NAME] -- CMD [ARGS...]");
  profile_->add_option("--out", out_, "Database to write, or to merge into when it exists")
      ->capture_default_str();
  profile_->add_option("--gpu-model", gpu_model_,
                       "Catalog GPU the measurements belong to (default: the device's own name)");
  profile_->add_flag("--quiet", quiet_, "No progress line");
  profile_->add_flag("--nccl-standin", nccl_standin_,
                     "Give CMD a stand-in NCCL that accepts communicators of any size and "
                     "completes collectives locally without peers, so that one process profiles "
                     "one rank (RANK, WORLD_SIZE) of a larger job on this GPU");
  profile_->add_option("command", command_, "The command to profile")->required();
  profile_->positionals_at_end();
}

bool ProfileCommand::parsed() const { return profile_->parsed(); }

int ProfileCommand::run() {
  std::optional<std::string> gpu;
  if (!gpu_model_.empty()) {
    if (!sim::find_gpu(gpu_model_)) {
      std::fprintf(stderr, "seer profile: unknown GPU model '%s'\n", gpu_model_.c_str());
      return kExitUsage;
    }
    gpu = gpu_model_;
  }
  rt::KernelDb db;
  std::error_code ec;
  const bool existing = fs::exists(out_, ec);
  try {
    if (existing) db = rt::KernelDb::load(out_);
  } catch (const rt::KernelDbError& e) {
    std::fprintf(stderr, "seer profile: %s\n", e.what());
    return kExitUsage;
  }
  const std::string recorder = library_dir() + "/libseer_profiler.so";
  if (!fs::exists(recorder, ec)) {
    std::fprintf(stderr, "seer profile: the recorder %s is missing (a broken install)\n",
                 recorder.c_str());
    return 1;
  }
  std::string standin;
  if (nccl_standin_) {
    standin = library_dir() + "/libseer_nccl_standin.so";
    if (!fs::exists(standin, ec)) {
      std::fprintf(stderr, "seer profile: the NCCL stand-in %s is missing (a broken install)\n",
                   standin.c_str());
      return 1;
    }
  }
  std::string dir = (fs::temp_directory_path(ec) / "seer-profile-XXXXXX").string();
  if (!::mkdtemp(dir.data())) {
    std::fprintf(stderr, "seer profile: cannot create a directory for records: %s\n",
                 std::strerror(errno));
    return 1;
  }
  // Like system(): Ctrl-C stops the command; seer profile then keeps what was recorded.
  struct sigaction ignore {
  }, old_int{}, old_quit{};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGINT, &ignore, &old_int);
  ::sigaction(SIGQUIT, &ignore, &old_quit);
  const pid_t child = start(command_, recorder, standin, dir);
  const bool show = !quiet_ && ::isatty(STDERR_FILENO);
  int status = 0;
  while (::waitpid(child, &status, WNOHANG) == 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    if (show) {
      const Progress p = progress_of(dir);
      std::fprintf(stderr, "\rseer profile: about %ju records from %zu process(es)", p.lines,
                   p.files);
    }
  }
  if (show) std::fprintf(stderr, "\n");
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGQUIT, &old_quit, nullptr);
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

  rt::ProfileRecords records;
  int result = 0;
  try {
    for (const auto& entry : fs::directory_iterator(dir)) records.add_file(entry.path().string());
    for (const std::string& e : records.errors())
      std::fprintf(stderr, "seer profile: %s\n", e.c_str());
    if (records.processes() == 0 && code != 127) {
      std::fprintf(stderr,
                   "seer profile: nothing was recorded: the command never initialized CUDA with "
                   "a real driver (seer profile needs an NVIDIA GPU, its driver and CUPTI)\n");
      result = code ? code : 1;
    } else if (records.processes() == 0) {
      result = code;
    } else {
      const rt::KernelDb recorded = records.database(gpu);
      const size_t before = db.size();
      db.merge(recorded);
      if (recorded.size() > 0) db.save(out_);
      print_summary(records, recorded, out_, before, db.size());
      if (records.processes_ended() < records.processes()) {
        std::fprintf(stderr,
                     "seer profile: %zu of %zu process(es) did not exit normally; their last "
                     "records may be missing\n",
                     records.processes() - records.processes_ended(), records.processes());
      }
      if (recorded.size() == 0) result = 1;
      if (code) result = code;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "seer profile: %s\n", e.what());
    result = code ? code : 1;
  }
  fs::remove_all(dir, ec);
  if (code) std::fprintf(stderr, "seer profile: the command exited with status %d\n", code);
  return result;
}

}  // namespace seer::cli
