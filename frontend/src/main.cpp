// The `seer` command line: run, serve, presets, check, db, profile.

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
#include "host_cpus.h"
#include "launcher.h"
#include "profile_command.h"
#include "relay.h"
#include "seer/netsim/ns3_model.h"
#include "seer/runtime/cluster.h"
#include "seer/runtime/kernel_db.h"
#include "seer/runtime/remote.h"
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
  std::string network;     // --network flow|ns3 ("": the cluster file's)
  std::string connect;     // run --connect HOST:PORT
  std::string listen;      // serve --listen HOST:PORT
  std::string token_file;  // --token-file
};

volatile sig_atomic_t g_interrupted = 0;
void note_interrupt(int) { g_interrupted = 1; }

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

// Session options from the command line and the environment; 0, or the exit code of an error.
int session_options(const RunArgs& args, seer::rt::SessionOptions& options) {
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
  if (!args.network.empty()) options.cluster.network = args.network;
  if (options.cluster.network == "ns3" && !seer::net::ns3_available()) {
    std::fprintf(stderr,
                 "seer: the ns3 network model is not in this build: install libns3-dev and "
                 "libgsl-dev (scripts/setup.sh does) and build again\n");
    return kExitUsage;
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
  return 0;
}

std::unique_ptr<seer::rt::Session> open_session(const seer::rt::SessionOptions& options) {
  try {
    return std::make_unique<seer::rt::Session>(options);
  } catch (const seer::rt::KernelDbError& e) {
    std::fprintf(stderr, "seer: kernel database: %s\n", e.what());
  } catch (const seer::rt::RemoteError& e) {
    std::fprintf(stderr, "seer: %s\n", e.what());
  }
  return nullptr;
}

// Prints the report and writes the files under --out; returns the exit code.
int finish(const RunArgs& args, const seer::rt::Session& session,
           const seer::rt::SessionResult& result, seer::rt::RunDescription& run) {
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

// `seer serve`: the session alone, for ranks that other hosts' `seer run --connect` relay.
int serve(const RunArgs& args) {
  seer::rt::SessionOptions options;
  if (const int error = session_options(args, options)) return error;
  bool created = false;
  try {
    options.listen = seer::rt::parse_endpoint(args.listen);
    options.token = seer::rt::load_token(args.token_file, true, &created);
  } catch (const seer::rt::RemoteError& e) {
    std::fprintf(stderr, "seer: serve: %s\n", e.what());
    return kExitUsage;
  }
  options.progress = false;
  std::unique_ptr<seer::rt::Session> session_ptr = open_session(options);
  if (!session_ptr) return kExitUsage;
  seer::rt::Session& session = *session_ptr;
  if (created) {
    std::fprintf(stderr,
                 "seer: wrote a new token to %s (readable by you only); give it to every "
                 "host\n",
                 args.token_file.c_str());
  }
  std::fprintf(
      stderr,
      "seer: serving a %s session on %s; on each host run\n"
      "  seer run --connect HOST:%d --token-file %s -- COMMAND\n",
      options.cluster.name.c_str(), session.listen_address().c_str(),
      std::atoi(session.listen_address().substr(session.listen_address().rfind(':') + 1).c_str()),
      args.token_file.c_str());
  struct sigaction action {};
  action.sa_handler = note_interrupt;
  ::sigemptyset(&action.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &action, nullptr);
  bool interrupted = false;
  session.serve([&] {
    if (g_interrupted && !interrupted) {
      interrupted = true;
      session.abort("seer serve was interrupted");
    }
    return !interrupted && !session.remote_hosts_finished();
  });
  const seer::rt::SessionResult result = session.result();
  seer::rt::RunDescription run;
  int hosts_failed = 0;
  for (const seer::rt::HostInfo& h : result.hosts) {
    if (run.command.empty()) run.command = h.command;
    if (h.done && h.exit_code != 0 && run.exit_code == 0) run.exit_code = h.exit_code;
    hosts_failed += h.done && h.exit_code == 0 ? 0 : 1;
  }
  run.exit_description = std::to_string(result.hosts.size()) + " host" +
                         (result.hosts.size() == 1 ? "" : "s") +
                         (hosts_failed ? ", " + std::to_string(hosts_failed) + " failed"
                                       : ", every command exited with status 0");
  return finish(args, session, result, run);
}

// `seer run --connect`: this host's ranks join a session that `seer serve` runs elsewhere.
int run_connected(const RunArgs& args) {
  std::unique_ptr<seer::cli::Relay> relay;
  try {
    const seer::rt::Endpoint at = seer::rt::parse_endpoint(args.connect);
    relay = std::make_unique<seer::cli::Relay>(at, seer::rt::load_token(args.token_file, false),
                                               args.command);
  } catch (const seer::rt::RemoteError& e) {
    std::fprintf(stderr, "seer: --connect: %s\n", e.what());
    return kExitUsage;
  }
  if (!args.quiet) {
    std::fprintf(stderr, "seer: joined the session at %s; it prints the report\n",
                 args.connect.c_str());
  }
  const pid_t child =
      seer::cli::launch(args.command, relay->socket_path(), seer::cli::library_dir());
  seer::cli::forward_signals_to(child);
  int status = 0;
  bool child_done = false;
  std::string stopped;
  relay->serve(
      [&] {
        if (!child_done && ::waitpid(child, &status, WNOHANG) == child) {
          child_done = true;
          ::kill(-child, SIGTERM);
        }
        return !child_done;
      },
      [&](const std::string& why) {
        stopped = why;
        ::kill(-child, SIGTERM);
      });
  if (!child_done) {
    for (int i = 0; i < 50 && ::waitpid(child, &status, WNOHANG) != child; ++i) ::usleep(20000);
    ::kill(-child, SIGKILL);
    ::waitpid(child, &status, 0);
  }
  seer::cli::take_back_terminal();
  relay->finish(exit_code_of(status), describe_status(status));
  int code = exit_code_of(status);
  if (!stopped.empty()) {
    std::fprintf(stderr, "seer: the session stopped the run: %s\n", stopped.c_str());
    if (code == 0) code = 1;
  }
  return code;
}

int run(const RunArgs& args) {
  if (!args.connect.empty()) return run_connected(args);
  seer::rt::SessionOptions options;
  if (const int error = session_options(args, options)) return error;
  std::unique_ptr<seer::rt::Session> session_ptr = open_session(options);
  if (!session_ptr) return kExitUsage;
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
  return finish(args, session, result, run);
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
  run_cmd
      ->add_option("--network", args.network,
                   "Network model: flow (flow-level max-min sharing, the default) or ns3 "
                   "(packet-level, ns-3); default: the cluster file's `network`")
      ->check(CLI::IsMember({"flow", "ns3"}));
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
  run_cmd->add_option("--connect", args.connect,
                      "Join the session `seer serve` runs at HOST:PORT: this host's ranks are "
                      "simulated there, and it prints the report");
  run_cmd->add_option("--token-file", args.token_file,
                      "With --connect: the session's token file (the one given to seer serve)");
  run_cmd->add_option("command", args.command, "The command to run (after --)")->required();
  seer::check::RunChecks run_checks(*run_cmd);

  RunArgs serve_args;
  CLI::App* serve_cmd = app.add_subcommand(
      "serve",
      "Run a session alone for ranks on several hosts (each joins with seer run --connect); "
      "prints the report when their commands have ended");
  serve_cmd->add_option("--cluster", serve_args.cluster, "Cluster, as for seer run")
      ->capture_default_str();
  serve_cmd
      ->add_option("--listen", serve_args.listen,
                   "TCP address to accept hosts on: HOST:PORT (HOST * or empty: every address)")
      ->required();
  serve_cmd
      ->add_option("--token-file", serve_args.token_file,
                   "Secret shared with the hosts (created with a random token when missing); "
                   "it never crosses the network")
      ->required();
  serve_cmd->add_option("--out", serve_args.out, "Directory for the report files, as for seer run");
  serve_cmd->add_option("--host-time", serve_args.host_time, "As for seer run")
      ->check(CLI::IsMember({"measured", "modeled"}))
      ->capture_default_str();
  serve_cmd->add_flag("--quiet", serve_args.quiet, "Do not print the report");
  serve_cmd->add_option("--network", serve_args.network, "As for seer run")
      ->check(CLI::IsMember({"flow", "ns3"}));
  serve_cmd->add_option("--kernel-db", serve_args.kernel_db, "As for seer run");
  serve_cmd->add_option("--step-range", serve_args.step_range, "As for seer run");
  serve_cmd->add_flag("--torch-traces", serve_args.torch_traces, "As for seer run");

  std::string preset_name;
  CLI::App* presets = app.add_subcommand("presets", "List cluster presets, or print one");
  presets->add_option("name", preset_name, "Preset to print");
  bool host_cpus = false;
  bool refresh_calibration = false;
  presets->add_flag("--host-cpus", host_cpus,
                    "List the host CPUs a cluster's node.host_cpu can name, with this machine's "
                    "calibration against each");
  presets->add_flag("--refresh", refresh_calibration,
                    "With --host-cpus: calibrate this machine again instead of using the cache");
  seer::check::CheckCommand check_cmd(app);
  seer::cli::DbCommand db_cmd(app);
  seer::cli::ProfileCommand profile_cmd(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kExitUsage;
  }
  try {
    if (*run_cmd) {
      if (!args.connect.empty() || !args.token_file.empty()) {
        if (args.connect.empty() || args.token_file.empty()) {
          std::fprintf(stderr, "seer: --connect and --token-file go together\n");
          return kExitUsage;
        }
        for (const char* o :
             {"--cluster", "--out", "--host-time", "--kernel-db", "--step-range", "--network",
              "--torch-traces", "--assert", "--baseline", "--max-regression", "--junit"}) {
          const CLI::Option* opt = run_cmd->get_option_no_throw(o);
          if (opt && opt->count() > 0) {
            std::fprintf(stderr,
                         "seer: %s is seer serve's to set: with --connect the session runs "
                         "there\n",
                         o);
            return kExitUsage;
          }
        }
        return run(args);
      }
      return run_checks.run(args.out, [&] { return run(args); });
    }
    if (*serve_cmd) return serve(serve_args);
    if (check_cmd.parsed()) return check_cmd.run();
    if (db_cmd.parsed()) return db_cmd.run();
    if (profile_cmd.parsed()) return profile_cmd.run();
    if (*presets) {
      if (host_cpus) return seer::cli::print_host_cpus(refresh_calibration);
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
