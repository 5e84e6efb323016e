#include "torch_util.h"

#include <unistd.h>

#include <regex>
#include <sstream>

namespace seer::e2e::torch {

std::string python() { return SEER_PYTHON; }

std::string missing_python() {
  if (::access(python().c_str(), X_OK) != 0) {
    return "no Python environment at " + python() +
           ": run scripts/setup-python.sh (or configure with -DSEER_PYTHON=/path/to/python)";
  }
  return "";
}

std::string example(const std::string& script) {
  return std::string(E2E_TORCH_EXAMPLES_DIR) + "/" + script;
}
std::string program(const std::string& script) {
  return std::string(E2E_SOURCE_DIR) + "/programs/" + script;
}
std::string cluster_file(const std::string& name) {
  return std::string(E2E_SOURCE_DIR) + "/" + name;
}

std::vector<std::string> python_command(const std::string& script,
                                        const std::vector<std::string>& args) {
  std::vector<std::string> argv{python(), script};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

std::vector<std::string> torchrun(int nproc, const std::string& script,
                                  const std::vector<std::string>& args) {
  std::vector<std::string> argv{python(),
                                "-m",
                                "torch.distributed.run",
                                "--standalone",
                                "--nproc_per_node",
                                std::to_string(nproc),
                                script};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

std::vector<std::string> seer_run_argv(const std::string& cluster, const std::string& out,
                                       const std::vector<std::string>& command,
                                       const std::string& host_time) {
  std::vector<std::string> argv{seer_bin(), "run", "--host-time", host_time, "--cluster", cluster};
  if (!out.empty()) {
    argv.push_back("--out");
    argv.push_back(out);
  }
  argv.push_back("--");
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

Outcome seer_torch(const std::string& cluster, const std::string& out,
                   const std::vector<std::string>& command, const std::string& host_time,
                   const Env& env) {
  return run_command(seer_run_argv(cluster, out, command, host_time), env, 540);
}

std::vector<double> numbers(const std::string& text, const std::string& pattern) {
  const std::regex re(pattern);
  std::vector<double> found;
  std::istringstream lines(text);
  std::string line;
  std::smatch m;
  while (std::getline(lines, line)) {
    if (std::regex_search(line, m, re)) found.push_back(std::stod(m[1].str()));
  }
  return found;
}

void TorchTest::SetUp() {
  const std::string why = missing_python();
  if (!why.empty()) GTEST_SKIP() << why;
}

}  // namespace seer::e2e::torch
