#include "e2e_util.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace seer::e2e {
namespace {

std::map<std::string, std::string> parse_results(const std::string& out) {
  std::map<std::string, std::string> results;
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("RESULT ", 0) != 0) continue;
    const size_t space = line.find(' ', 7);
    if (space == std::string::npos) continue;
    results[line.substr(7, space - 7)] = line.substr(space + 1);
  }
  return results;
}

}  // namespace

std::string Outcome::text(const std::string& name) const {
  auto it = results.find(name);
  if (it == results.end()) {
    ADD_FAILURE() << "the program printed no RESULT " << name << "\n" << describe();
    return "";
  }
  return it->second;
}

long long Outcome::integer(const std::string& name) const {
  const std::string t = text(name);
  return t.empty() ? 0 : std::stoll(t);
}

double Outcome::number(const std::string& name) const {
  const std::string t = text(name);
  return t.empty() ? 0.0 : std::stod(t);
}

std::string Outcome::describe() const {
  std::ostringstream s;
  s << "exit status " << exit_code << (timed_out ? " (timed out)" : "") << "\n--- stdout ---\n"
    << out << "--- stderr ---\n"
    << err << "--------------";
  return s.str();
}

Outcome run_command(const std::vector<std::string>& argv, const Env& env, int timeout_s) {
  TempDir capture;
  const std::string out_path = capture.file("stdout");
  const std::string err_path = capture.file("stderr");
  Outcome o;
  const pid_t pid = ::fork();
  if (pid < 0) {
    ADD_FAILURE() << "fork: " << std::strerror(errno);
    return o;
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
    const int out_fd = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err_fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int null_fd = ::open("/dev/null", O_RDONLY);
    if (out_fd < 0 || err_fd < 0 || null_fd < 0) ::_exit(126);
    ::dup2(null_fd, 0);
    ::dup2(out_fd, 1);
    ::dup2(err_fd, 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    std::fprintf(stderr, "run_command: cannot run %s: %s\n", args[0], std::strerror(errno));
    ::_exit(125);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  int status = 0;
  while (true) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) {
      ADD_FAILURE() << "waitpid: " << std::strerror(errno);
      return o;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      o.timed_out = true;
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFEXITED(status)) o.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) o.exit_code = 128 + WTERMSIG(status);
  o.out = read_file(out_path);
  o.err = read_file(err_path);
  o.results = parse_results(o.out);
  return o;
}

TempDir::TempDir() {
  char pattern[] = "/tmp/seer-e2e-XXXXXX";
  const char* p = ::mkdtemp(pattern);
  if (!p) throw std::runtime_error(std::string("mkdtemp: ") + std::strerror(errno));
  path_ = p;
}

TempDir::~TempDir() {
  if (std::getenv("SEER_E2E_KEEP")) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
}

nlohmann::json read_json(const std::string& path) {
  const std::string text = read_file(path);
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) ADD_FAILURE() << path << " is not valid JSON:\n" << text.substr(0, 2000);
  return j;
}

std::string seer_bin() { return SEER_BIN; }
std::string seer_lib_dir() { return SEER_LIB_DIR; }
#ifdef E2E_MPIRUN
std::vector<std::string> mpirun(int np, std::vector<std::string> command) {
  std::vector<std::string> argv{E2E_MPIRUN, "--oversubscribe", "-np", std::to_string(np)};
  if (::geteuid() == 0) argv.insert(argv.begin() + 1, "--allow-run-as-root");
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}
#endif

std::string program(const std::string& name) { return std::string(E2E_PROGRAM_DIR) + "/" + name; }
std::string source_dir() { return E2E_SOURCE_DIR; }

Outcome seer(const std::vector<std::string>& args, const Env& env, int timeout_s) {
  std::vector<std::string> argv{seer_bin()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv, env, timeout_s);
}

Outcome seer_run(const std::string& cluster, const std::string& out,
                 const std::vector<std::string>& command, const Env& env,
                 const std::string& host_time) {
  std::vector<std::string> args{"run", "--host-time", host_time, "--cluster", cluster};
  if (!out.empty()) {
    args.push_back("--out");
    args.push_back(out);
  }
  args.push_back("--");
  args.insert(args.end(), command.begin(), command.end());
  return seer(args, env);
}

void expect_event_ms(const Outcome& o, const std::string& name, int64_t expected_ns) {
  const double expected_ms = static_cast<double>(expected_ns) / 1e6;
  EXPECT_NEAR(o.number(name), expected_ms, 2e-6 + 1e-7 * expected_ms)
      << name << ": expected " << expected_ns << " ns";
}

void expect_ns(const Outcome& o, const std::string& name, int64_t expected_ns) {
  EXPECT_EQ(o.integer(name), expected_ns) << name;
}

namespace model {
namespace {

int64_t ceil_div(unsigned __int128 a, unsigned __int128 b) {
  return static_cast<int64_t>((a + b - 1) / b);
}

}  // namespace

int64_t kernel_ns(const Gpu& gpu, int64_t gx, int64_t gy, int64_t gz, int64_t bx, int64_t by,
                  int64_t bz) {
  // threads_per_block = bx*by*bz; blocks = gx*gy*gz
  // blocks_per_sm = clamp(floor(max_threads_per_sm / threads_per_block), 1, max_blocks_per_sm)
  // waves = ceil(blocks / (sm_count * blocks_per_sm)); duration = 2000 + 1500 * waves
  const int64_t threads = bx * by * bz;
  const int64_t blocks = gx * gy * gz;
  int64_t per_sm = gpu.max_threads_per_sm / threads;
  if (per_sm < 1) per_sm = 1;
  if (per_sm > gpu.max_blocks_per_sm) per_sm = gpu.max_blocks_per_sm;
  const int64_t waves = ceil_div(static_cast<unsigned __int128>(blocks),
                                 static_cast<unsigned __int128>(gpu.sm_count * per_sm));
  return 2000 + 1500 * waves;
}

int64_t transfer_ns(int64_t bytes, int64_t bw_num, int64_t bw_den) {
  // ceil(bytes * 1e9 / (bw_num / bw_den))
  return ceil_div(static_cast<unsigned __int128>(bytes) * 1'000'000'000u * bw_den,
                  static_cast<unsigned __int128>(bw_num));
}

int64_t h2d_pinned_ns(const Links& l, int64_t bytes) {
  return l.host_lat_ns + transfer_ns(bytes, l.host_bw);  // lat + bytes / bw
}

int64_t h2d_pageable_ns(const Links& l, int64_t bytes) {
  // lat + bytes / (bw * pageable_factor)
  return l.host_lat_ns + transfer_ns(bytes, l.host_bw * l.pageable_num, l.pageable_den);
}

int64_t d2d_ns(const Gpu& g, int64_t bytes) {
  // 1000 + 2 * bytes / (hbm_bw * 0.9)
  return 1000 + transfer_ns(2 * bytes, g.hbm_bytes_per_s * 9, 10);
}

int64_t memset_ns(const Gpu& g, int64_t bytes) {
  // 1000 + bytes / (hbm_bw * 0.9)
  return 1000 + transfer_ns(bytes, g.hbm_bytes_per_s * 9, 10);
}

int64_t peer_same_node_ns(const Links& l, int64_t bytes) {
  return l.scale_up_lat_ns + transfer_ns(bytes, l.scale_up_bw);
}

int64_t peer_other_node_ns(const Links& l, int64_t bytes) {
  return 2 * l.host_lat_ns + transfer_ns(bytes, l.host_bw);
}

int64_t h2h_ns(int64_t bytes) { return transfer_ns(bytes, 10'000'000'000); }

}  // namespace model
}  // namespace seer::e2e
