// `seer check`: gates a run on its summary.json (assertions on metrics, a baseline comparison,
// JUnit XML), and the same checks as options of `seer run`. README.md next to this file documents
// the metrics, the syntax and the exit codes: 0 all checks hold, 1 a breach, 2 a usage or input
// error, 3 an internal error.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace seer::check {

inline constexpr int kExitPass = 0;
inline constexpr int kExitBreach = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitInternal = 3;

struct CheckOptions {
  std::vector<std::string> asserts;  // "METRIC OP VALUE[UNIT]"
  std::string baseline;              // a summary.json (or its directory)
  std::string max_regression;        // "5%" or "0.05"; the default (5%) when not given
  bool max_regression_given = false;
  std::string junit;  // JUnit XML output file

  bool any() const {
    return !asserts.empty() || !baseline.empty() || max_regression_given || !junit.empty();
  }
};

// Checks `summary_path` (a summary.json or a directory holding one). Results go to `out`, errors
// to stderr prefixed with `who` ("seer check"). Returns the exit code.
int check_summary(const std::string& summary_path, const CheckOptions& options, std::ostream& out,
                  const std::string& who);

// The `check` subcommand. main.cpp: construct it next to the other subcommands, and after
// parsing: `if (check_cmd.parsed()) return check_cmd.run();`.
class CheckCommand {
 public:
  explicit CheckCommand(CLI::App& app);
  bool parsed() const;
  int run();

 private:
  CLI::App* sub_ = nullptr;
  CLI::Option* max_regression_ = nullptr;
  std::string summary_;
  CheckOptions options_;
};

// --assert, --baseline, --max-regression and --junit on `seer run`. main.cpp: construct it with
// the run subcommand, and run the program through it:
//   return run_checks.run(args.out, [&] { return run(args); });
// Without check options this is just run_program(). With them, they are validated before the
// program starts (exit 2 on a mistake), the run must have --out, and after it DIR/summary.json
// is checked. The exit code is the check's when the run exited 0, else the run's.
class RunChecks {
 public:
  explicit RunChecks(CLI::App& run_cmd);
  int run(const std::string& out_dir, const std::function<int()>& run_program);

 private:
  CLI::Option* max_regression_ = nullptr;
  CheckOptions options_;
};

}  // namespace seer::check
