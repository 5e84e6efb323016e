// "Hosts" for the multi-host tests: two Linux network namespaces joined by a veth pair (each
// with its own address, as two machines on one network), or, where namespaces cannot be made
// (not root, no `ip`), two loopback addresses of this machine.
#pragma once

#include <string>
#include <vector>

#include "e2e_util.h"

namespace seer::e2e::multihost {

class Hosts {
 public:
  Hosts();
  ~Hosts();
  Hosts(const Hosts&) = delete;
  Hosts& operator=(const Hosts&) = delete;

  bool namespaces() const { return !names_.empty(); }
  // The address other hosts reach host i (0 or 1) at.
  const std::string& address(int i) const { return addresses_.at(static_cast<size_t>(i)); }
  // `argv` run on host i.
  std::vector<std::string> on(int i, std::vector<std::string> argv) const;
  std::string describe() const;

 private:
  std::vector<std::string> names_;
  std::vector<std::string> addresses_;
  std::string veth_;
};

// A command running in the background, its output going to files.
class Background {
 public:
  Background(const std::vector<std::string>& argv, const Env& env, const std::string& out_prefix);
  ~Background();
  Background(const Background&) = delete;
  Background& operator=(const Background&) = delete;

  // Waits for the exit; false on timeout (the process group is then killed).
  bool wait(int timeout_s);
  int exit_code() const { return exit_code_; }
  std::string out() const;
  std::string err() const;
  std::string describe() const;

 private:
  int pid_ = -1;
  int exit_code_ = -1;
  std::string out_path_;
  std::string err_path_;
};

// Pids of the processes whose environment holds NAME=VALUE.
std::vector<int> processes_with_env(const std::string& name, const std::string& value);

}  // namespace seer::e2e::multihost
