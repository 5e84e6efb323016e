// The `seer` command line: run, presets, check.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <regex>

#include "check/check.h"
#include "db_command.h"
#include "launcher.h"
#include "seer/runtime/cluster.h"
#include "seer/runtime/kernel_db.h"
#include "seer/runtime/report.h"
#include "seer/runtime/session.h"
#include "static_runtime_exit.h"

namespace {

constexpr int kExitUsage = 2;
constexpr int kExitInternal = 3;

struct RunArgs {
  std::string cluster = "dgx-h100";
  std::string out;
  std::string host_time = "measured";
  bool quiet = false;
  std::string kernel_db;  // --kernel-db, else $SEER_KERNEL_DB
  std::string step_range;
  bool torch_traces = false;
  std::vector<std::string> command;
};

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    return std::string("killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  }
  return "ended";
}

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

int run(const RunArgs& args) {
  seer::rt::SessionOptions options;
  try {
    options.cluster = seer::rt::load_cluster(args.cluster);
  } catch (const seer::rt::ClusterError& e) {
    std::fprintf(stderr, "seer: cluster: %s\n", e.what());
    return kExitUsage;
  }
  if (const char* t = std::getenv("SEER_JOIN_TIMEOUT_S")) options.join_timeout_s = std::atof(t);
  if (const char* t = std::getenv("SEER_DEADLOCK_S")) options.deadlock_grace_s = std::atof(t);
  // How long (real ms) a thread may stay outside CUDA before it stops holding virtual time back.
  if (const char* t = std::getenv("SEER_PARK_AFTER_MS"); t && *t) {
    const long ms = std::strtol(t, nullptr, 10);
    if (ms > 0) options.park_after_ms = options.park_after_ms_modeled = ms;
  }
  if (const char* m = std::getenv("SEER_NCCL_MODEL")) {
    if (std::string(m) != "nccl" && std::string(m) != "simple") {
      std::fprintf(stderr, "seer: SEER_NCCL_MODEL: '%s' is not one of: nccl, simple\n", m);
      return kExitUsage;
    }
    options.nccl_model = m;
  }
  if (const char* v = std::getenv("SEER_NCCL_VERSION"); v && *v) {
    char* end = nullptr;
    const long code = std::strtol(v, &end, 10);
    if (*end != '\0' || code < 20000 || code > 99999) {
      std::fprintf(stderr,
                   "seer: SEER_NCCL_VERSION: '%s' is not an NCCL version code (e.g. 22809 for "
                   "2.28.9, 21805 for 2.18.5)\n",
                   v);
      return kExitUsage;
    }
    options.nccl_version = static_cast<int>(code);
  }
  options.kernel_db = args.kernel_db;
  if (const char* db = std::getenv("SEER_KERNEL_DB"); db && options.kernel_db.empty()) {
    options.kernel_db = db;
  }
  if (args.torch_traces && args.out.empty()) {
    std::fprintf(stderr, "seer: --torch-traces writes under the --out directory: give --out DIR\n");
    return kExitUsage;
  }
  if (!args.step_range.empty()) {
    try {
      const std::regex check(args.step_range, std::regex::icase | std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      std::fprintf(stderr, "seer: --step-range: '%s' is not a valid regular expression: %s\n",
                   args.step_range.c_str(), e.what());
      return kExitUsage;
    }
  }
  options.step_range = args.step_range;
  options.record_link_utilisation = !args.out.empty();
  options.progress = !args.quiet && ::isatty(STDERR_FILENO);
  options.host_time =
      args.host_time == "modeled" ? seer::rt::HostTime::kModeled : seer::rt::HostTime::kMeasured;
  std::unique_ptr<seer::rt::Session> session_ptr;
  try {
    session_ptr = std::make_unique<seer::rt::Session>(options);
  } catch (const seer::rt::KernelDbError& e) {
    std::fprintf(stderr, "seer: kernel database: %s\n", e.what());
    return kExitUsage;
  }
  seer::rt::Session& session = *session_ptr;
  const std::string lib_dir = seer::cli::library_dir();
  const pid_t child = seer::cli::launch(args.command, session.socket_path(), lib_dir);
  seer::cli::forward_signals_to(child);
  int status = 0;
  bool child_done = false;
  session.serve([&] {
    if (!child_done && ::waitpid(child, &status, WNOHANG) == child) {
      child_done = true;
      ::kill(-child, SIGTERM);  // leftover processes of the command's group
    }
    return !child_done;
  });
  if (!child_done) {
    // The session stopped the run (deadlock, mismatch, a rank died): stop the command too.
    ::kill(-child, SIGTERM);
    for (int i = 0; i < 50 && ::waitpid(child, &status, WNOHANG) != child; ++i) ::usleep(20000);
    ::kill(-child, SIGKILL);
    ::waitpid(child, &status, 0);
  }
  seer::cli::take_back_terminal();
  const seer::rt::SessionResult result = session.result();
  seer::rt::RunDescription run;
  run.command = args.command;
  run.exit_code = exit_code_of(status);
  run.exit_description = describe_status(status);
  if (run.exit_code == seer::kStaticRuntimeExitCode) {
    run.exit_description += " (its CUDA runtime is linked statically; rebuild with -cudart shared)";
  } else if (run.exit_code == seer::kRealRuntimeExitCode) {
    run.exit_description += " (NVIDIA's CUDA runtime was loaded instead of Seer's)";
  }
  if (result.aborted) {
    if (run.exit_code == 0) run.exit_code = 1;
    run.exit_description += "; the simulation was stopped: " + result.problems.back();
  }
  if (!args.quiet) seer::rt::print_report(std::cerr, session, result, run);
  if (args.quiet && result.aborted)
    std::fprintf(stderr, "seer: %s\n", result.problems.back().c_str());
  if (!args.out.empty()) {
    try {
      seer::rt::ReportFiles files;
      files.torch_traces = args.torch_traces;
      seer::rt::write_reports(args.out, session, result, run, files);
      if (!args.quiet) {
        std::fprintf(stderr, "reports      %s/{summary,run,trace}.json%s\n", args.out.c_str(),
                     args.torch_traces ? " and torch/rank*.pt.trace.json" : "");
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "seer: %s\n", e.what());
      return kExitInternal;
    }
  }
  return run.exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Seer: runs an unmodified CUDA program on a simulated GPU cluster and reports how fast it\n"
      "would run there. Every rank runs for real on this machine; CUDA calls are simulated and\n"
      "the program's own clocks read virtual time."};
  app.require_subcommand(1);
  RunArgs args;
  CLI::App* run_cmd = app.add_subcommand(
      "run", "Run a command on a simulated cluster: seer run [options] -- CMD [ARGS...]");
  run_cmd
      ->add_option("--cluster", args.cluster,
                   "Cluster: a preset (dgx-h100, dgx-a100, hgx-h200, test-fabric), NAME:N for N "
                   "nodes of a preset, or a YAML file")
      ->capture_default_str();
  run_cmd->add_option("--out", args.out,
                      "Directory for summary.json (deterministic), run.json and trace.json "
                      "(Chrome trace; open in ui.perfetto.dev)");
  run_cmd
      ->add_option("--host-time", args.host_time,
                   "How host time between CUDA calls is counted: 'measured' (the thread's CPU "
                   "time) or 'modeled' (fixed per-call costs only: bit-identical results)")
      ->check(CLI::IsMember({"measured", "modeled"}))
      ->capture_default_str();
  run_cmd->add_flag("--quiet", args.quiet, "Do not print the report");
  run_cmd->add_option("--kernel-db", args.kernel_db,
                      "Kernel database (see `seer db`) consulted before the kernel models; "
                      "default: $SEER_KERNEL_DB");
  run_cmd->add_option("--step-range", args.step_range,
                      "Regular expression (case-insensitive) naming the NVTX ranges that are "
                      "training steps; default: ranges named like step/iter, else the most "
                      "repeated outermost range");
  run_cmd->add_flag("--torch-traces", args.torch_traces,
                    "Also write per-rank traces shaped like the PyTorch profiler's under "
                    "OUT/torch/ (for Holistic Trace Analysis, TensorBoard)");
  run_cmd->add_option("command", args.command, "The command to run (after --)")->required();
  seer::check::RunChecks run_checks(*run_cmd);

  std::string preset_name;
  CLI::App* presets = app.add_subcommand("presets", "List cluster presets, or print one");
  presets->add_option("name", preset_name, "Preset to print");
  seer::check::CheckCommand check_cmd(app);
  seer::cli::DbCommand db_cmd(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kExitUsage;
  }
  try {
    if (*run_cmd) return run_checks.run(args.out, [&] { return run(args); });
    if (check_cmd.parsed()) return check_cmd.run();
    if (db_cmd.parsed()) return db_cmd.run();
    if (*presets) {
      if (preset_name.empty()) {
        for (const auto& n : seer::rt::preset_names()) std::cout << n << "\n";
      } else {
        std::cout << seer::rt::preset_yaml(preset_name);
      }
      return 0;
    }
  } catch (const seer::rt::ClusterError& e) {
    std::fprintf(stderr, "seer: %s\n", e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "seer: internal error: %s\n", e.what());
    return kExitInternal;
  }
  return 0;
}
