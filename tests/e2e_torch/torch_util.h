// Helpers for the PyTorch end-to-end tests: the project's Python environment, torchrun command
// lines, and the numbers the example scripts print.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "e2e_util.h"

namespace seer::e2e::torch {

// SEER_PYTHON (CMake cache variable; default <repo>/.venv/bin/python).
std::string python();
// "" when the environment can run the tests, else why not (the fixture skips with it).
std::string missing_python();

std::string example(const std::string& script);     // examples/pytorch/SCRIPT
std::string program(const std::string& script);     // tests/e2e_torch/programs/SCRIPT
std::string cluster_file(const std::string& name);  // tests/e2e_torch/NAME

// `python SCRIPT ARGS...`
std::vector<std::string> python_command(const std::string& script,
                                        const std::vector<std::string>& args = {});
// `python -m torch.distributed.run --standalone --nproc_per_node N SCRIPT ARGS...`
std::vector<std::string> torchrun(int nproc, const std::string& script,
                                  const std::vector<std::string>& args = {});

// `seer run` for PyTorch programs: modeled host time, a generous timeout (each rank imports
// torch: seconds of CPU on this machine).
// `seer run --host-time H --cluster C [--out OUT] -- COMMAND...`
std::vector<std::string> seer_run_argv(const std::string& cluster, const std::string& out,
                                       const std::vector<std::string>& command,
                                       const std::string& host_time);
Outcome seer_torch(const std::string& cluster, const std::string& out,
                   const std::vector<std::string>& command,
                   const std::string& host_time = "modeled", const Env& env = {});

// The numbers the first capture group of `pattern` matches, line by line, in order.
std::vector<double> numbers(const std::string& text, const std::string& pattern);

// Skips a test when the Python environment is missing.
class TorchTest : public ::testing::Test {
 protected:
  void SetUp() override;
};

}  // namespace seer::e2e::torch
