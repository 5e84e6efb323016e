#include "hosts.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace seer::e2e::multihost {
namespace {

bool quiet(const std::vector<std::string>& argv) {
  return run_command(argv, {}, 20).exit_code == 0;
}

}  // namespace

Hosts::Hosts() {
  const int id = static_cast<int>(::getpid() % 200) + 20;
  const std::string a = "seer-a" + std::to_string(::getpid());
  const std::string b = "seer-b" + std::to_string(::getpid());
  veth_ = "sv" + std::to_string(::getpid());
  const std::string subnet = "10.231." + std::to_string(id) + ".";
  const bool made =
      ::geteuid() == 0 && quiet({"ip", "netns", "add", a}) && quiet({"ip", "netns", "add", b}) &&
      quiet({"ip", "link", "add", veth_ + "a", "type", "veth", "peer", "name", veth_ + "b"}) &&
      quiet({"ip", "link", "set", veth_ + "a", "netns", a}) &&
      quiet({"ip", "link", "set", veth_ + "b", "netns", b}) &&
      quiet({"ip", "-n", a, "addr", "add", subnet + "1/24", "dev", veth_ + "a"}) &&
      quiet({"ip", "-n", b, "addr", "add", subnet + "2/24", "dev", veth_ + "b"}) &&
      quiet({"ip", "-n", a, "link", "set", veth_ + "a", "up"}) &&
      quiet({"ip", "-n", b, "link", "set", veth_ + "b", "up"}) &&
      quiet({"ip", "-n", a, "link", "set", "lo", "up"}) &&
      quiet({"ip", "-n", b, "link", "set", "lo", "up"});
  if (made) {
    names_ = {a, b};
    addresses_ = {subnet + "1", subnet + "2"};
    return;
  }
  quiet({"ip", "netns", "del", a});
  quiet({"ip", "netns", "del", b});
  addresses_ = {"127.0.0.1", "127.0.0.2"};
}

Hosts::~Hosts() {
  for (const std::string& n : names_) quiet({"ip", "netns", "del", n});
}

std::vector<std::string> Hosts::on(int i, std::vector<std::string> argv) const {
  if (!namespaces()) return argv;
  std::vector<std::string> wrapped{"ip", "netns", "exec", names_.at(static_cast<size_t>(i))};
  wrapped.insert(wrapped.end(), argv.begin(), argv.end());
  return wrapped;
}

std::string Hosts::describe() const {
  return namespaces() ? "network namespaces " + names_[0] + " (" + addresses_[0] + ") and " +
                            names_[1] + " (" + addresses_[1] + ")"
                      : "loopback addresses (network namespaces unavailable)";
}

Background::Background(const std::vector<std::string>& argv, const Env& env,
                       const std::string& out_prefix)
    : out_path_(out_prefix + ".out"), err_path_(out_prefix + ".err") {
  pid_ = ::fork();
  if (pid_ != 0) return;
  ::setpgid(0, 0);
  for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
  const int out_fd = ::open(out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const int err_fd = ::open(err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const int null_fd = ::open("/dev/null", O_RDONLY);
  if (out_fd < 0 || err_fd < 0 || null_fd < 0) ::_exit(126);
  ::dup2(null_fd, 0);
  ::dup2(out_fd, 1);
  ::dup2(err_fd, 2);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  ::execvp(args[0], args.data());
  ::_exit(125);
}

Background::~Background() {
  if (exit_code_ < 0 && pid_ > 0) {
    ::kill(-pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
}

bool Background::wait(int timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  int status = 0;
  while (::waitpid(pid_, &status, WNOHANG) != pid_) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(-pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      exit_code_ = 137;
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return true;
}

std::string Background::out() const { return read_file(out_path_); }
std::string Background::err() const { return read_file(err_path_); }

std::string Background::describe() const {
  return "exit " + std::to_string(exit_code_) + "\n--- stdout ---\n" + out() +
         "\n--- stderr ---\n" + err();
}

std::vector<int> processes_with_env(const std::string& name, const std::string& value) {
  std::vector<int> pids;
  const std::string wanted = name + "=" + value;
  DIR* proc = ::opendir("/proc");
  if (!proc) return pids;
  while (dirent* e = ::readdir(proc)) {
    const int pid = std::atoi(e->d_name);
    if (pid <= 0) continue;
    std::ifstream in("/proc/" + std::string(e->d_name) + "/environ", std::ios::binary);
    std::string var;
    while (std::getline(in, var, '\0')) {
      if (var == wanted) {
        pids.push_back(pid);
        break;
      }
    }
  }
  ::closedir(proc);
  return pids;
}

}  // namespace seer::e2e::multihost
