#include "check.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <ostream>

#include "expr.h"
#include "junit.h"
#include "metrics.h"

namespace seer::check {
namespace {

constexpr double kDefaultMaxRegression = 0.05;

struct Plan {
  std::vector<Assertion> assertions;
  std::optional<Summary> baseline;
  double max_regression = kDefaultMaxRegression;
  std::string junit;  // a path that passed check_junit_path, or empty
  std::vector<std::pair<std::string, std::string>> properties;
};

void print_error(const std::string& who, const std::string& message) {
  std::cerr << who << ": " << message << "\n";
}

std::string percent(double fraction) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%+.2f%%", fraction * 100);
  return buf;
}

std::string plain_percent(double fraction) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g%%", fraction * 100);
  return buf;
}

// Left-aligned columns separated by two blanks, every line indented by two.
void print_table(std::ostream& out, const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line = " ";
    for (size_t i = 0; i < row.size(); ++i) {
      line += " " + row[i];
      if (i + 1 < row.size()) line += std::string(width[i] - row[i].size() + 1, ' ');
    }
    out << line << "\n";
  }
}

// Validates the options and loads the baseline, filling `plan` as it goes (so that a caller
// catching the InputError knows whether the JUnit path is usable).
void prepare(const CheckOptions& o, Plan& plan) {
  for (const std::string& a : o.asserts) plan.assertions.push_back(parse_assertion(a));
  if (o.max_regression_given) {
    if (o.baseline.empty()) {
      throw InputError("--max-regression needs --baseline (the summary to compare with)");
    }
    plan.max_regression = parse_max_regression(o.max_regression);
  }
  if (!o.junit.empty()) {
    check_junit_path(o.junit);
    plan.junit = o.junit;
  }
  if (!o.baseline.empty()) {
    try {
      plan.baseline = load_summary(o.baseline);
    } catch (const InputError& e) {
      throw InputError(std::string("baseline: ") + e.what());
    }
    plan.properties.emplace_back("baseline", plan.baseline->path);
    plan.properties.emplace_back("max_regression", plain_percent(plan.max_regression));
  }
}

// Writes the JUnit file when one was asked for; returns false (after saying why) on failure.
bool emit_junit(const Plan& plan, const std::vector<TestCase>& cases, const std::string& who) {
  if (plan.junit.empty()) return true;
  try {
    write_junit(plan.junit, junit_xml(cases, plan.properties));
    return true;
  } catch (const InputError& e) {
    print_error(who, e.what());
    return false;
  }
}

// An input that could not be read: say so, record it in the JUnit file, exit 2.
int input_failure(const Plan& plan, const std::string& who, const std::string& what,
                  const std::string& message, std::vector<TestCase> cases = {}) {
  print_error(who, message);
  cases.push_back({"seer.check.input", what, TestCase::Status::kError, message, message});
  emit_junit(plan, cases, who);
  return kExitUsage;
}

std::string json_text(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it == j.end() ? "?" : it->is_string() ? it->get<std::string>() : it->dump();
}

// Notes (not failures) when the two runs are not like for like.
void compare_setups(const Summary& base, const Summary& cur, std::ostream& out) {
  const auto cluster = [](const Summary& s) {
    auto it = s.json.find("cluster");
    if (it == s.json.end() || !it->is_object()) return std::string("?");
    return json_text(*it, "name") + " (" + json_text(*it, "nodes") + " x " +
           json_text(*it, "gpus_per_node") + " " + json_text(*it, "gpu") + ")";
  };
  if (cluster(base) != cluster(cur)) {
    out << "  note: the baseline ran on " << cluster(base) << ", this run on " << cluster(cur)
        << "\n";
  }
  const std::string bh = json_text(base.json, "host_time"), ch = json_text(cur.json, "host_time");
  if (bh != ch) {
    out << "  note: the baseline used --host-time " << bh << ", this run " << ch
        << " (use modeled for both to compare like with like)\n";
  }
  if (const std::string code = json_text(base.json, "exit_code"); code != "0" && code != "?") {
    out << "  note: the baseline's program exited with status " << code << "\n";
  }
}

// With nothing to check: the metrics this summary has, to help write assertions.
void print_metrics(const Summary& s, std::ostream& out) {
  std::vector<std::vector<std::string>> rows = {{"metric", "value"}};
  for (const Metric& m : metric_table()) {
    if (m.name.find('<') != std::string::npos) {
      auto colls = s.json.find("collectives");
      std::vector<std::string> ops;
      if (colls != s.json.end() && colls->is_array()) {
        for (const auto& c : *colls) {
          if (!c.is_object() || !c.contains("op") || !c["op"].is_string()) continue;
          const std::string op = c["op"].get<std::string>();
          if (std::find(ops.begin(), ops.end(), op) == ops.end()) ops.push_back(op);
        }
      }
      for (const std::string& op : ops) {
        const std::string name = "busbw_gbs:" + op;
        try {
          rows.push_back({name, format_value(metric_value(s, name), m.unit)});
        } catch (const InputError&) {
          rows.push_back({name, "(unavailable)"});
        }
      }
      continue;
    }
    try {
      rows.push_back({m.name, format_value(metric_value(s, m.name), m.unit)});
    } catch (const InputError&) {
      rows.push_back({m.name, m.name.rfind("step_", 0) == 0 ? "(no steps)" : "(unavailable)"});
    }
  }
  print_table(out, rows);
}

// Checks `summary_path` against the plan; `cases` may hold cases recorded before (seer run's).
int execute(const Plan& plan, const std::string& summary_path, std::ostream& out,
            const std::string& who, std::vector<TestCase> cases) {
  Summary current;
  try {
    current = load_summary(summary_path);
  } catch (const InputError& e) {
    return input_failure(plan, who, "summary", e.what(), std::move(cases));
  }
  out << "seer check   " << current.path << "\n";
  Plan resolved = plan;  // the file's own path in the JUnit properties
  for (auto& [name, value] : resolved.properties) {
    if (name == "summary") value = current.path;
  }
  std::vector<std::string> problems;

  if (plan.assertions.empty() && !plan.baseline) {
    print_metrics(current, out);
    out << "seer check   nothing to check (give --assert or --baseline); the metrics are above\n";
    if (!emit_junit(resolved, cases, who)) return kExitUsage;
    return kExitPass;
  }

  if (!plan.assertions.empty()) {
    std::vector<std::vector<std::string>> rows = {{"assertion", "value", "verdict"}};
    for (const Assertion& a : plan.assertions) {
      TestCase c{"seer.check.assert", a.text, TestCase::Status::kPass, "", ""};
      std::string value = "-", verdict = "ok";
      try {
        const double v = metric_value(current, a.metric.name);
        value = format_value(v, a.metric.unit);
        if (!holds(a, v)) {
          verdict = "FAILED";
          c.status = TestCase::Status::kFailure;
          c.message = a.metric.name + " is " + value + "; the assertion wants " + op_text(a.op) +
                      " " + format_value(a.value, a.metric.unit);
          c.detail = "assertion: " + a.text + "\nsummary: " + current.path + "\n" + c.message;
        }
      } catch (const InputError& e) {
        verdict = "ERROR";
        c.status = TestCase::Status::kError;
        c.message = e.what();
        c.detail = c.message;
        problems.push_back(e.what());
      }
      rows.push_back({a.text, value, verdict});
      cases.push_back(std::move(c));
    }
    print_table(out, rows);
  }

  if (plan.baseline) {
    const Summary& base = *plan.baseline;
    out << "baseline     " << base.path << " (allowed regression +"
        << plain_percent(plan.max_regression) << ")\n";
    compare_setups(base, current, out);
    std::vector<std::vector<std::string>> rows = {
        {"metric", "baseline", "current", "change", "verdict"}};
    std::vector<std::string> notes;
    for (const Metric& m : metric_table()) {
      if (!m.compared_to_baseline) continue;
      TestCase c{"seer.check.baseline", m.name + " vs baseline", TestCase::Status::kPass, "", ""};
      try {
        if (m.name.rfind("step_", 0) == 0) {
          const bool b = has_steps(base), k = has_steps(current);
          if (!b && !k) continue;  // neither program marks steps
          if (b != k) {
            notes.push_back(
                m.name + " not compared: " +
                (b ? std::string("this run has no steps") : "the baseline has no steps"));
            continue;
          }
        }
        const double bv = metric_value(base, m.name);
        const double cv = metric_value(current, m.name);
        const double limit = bv * (1 + plan.max_regression);
        std::string change, verdict = "ok";
        if (bv > 0) {
          change = percent((cv - bv) / bv);
        } else {
          change = cv > 0 ? "+inf" : percent(0);
        }
        // Exactly at the limit passes (to within 1 part in 10^9, the rounding of the product).
        if (cv > limit && cv - limit > 1e-9 * limit) {
          verdict = "REGRESSION";
          c.status = TestCase::Status::kFailure;
          c.message = m.name + " regressed: " + format_value(cv, m.unit) + " against " +
                      format_value(bv, m.unit) + " in the baseline (" + change + "; allowed +" +
                      plain_percent(plan.max_regression) + ")";
          c.detail = "baseline: " + base.path + "\nsummary: " + current.path + "\n" + c.message;
        } else if (cv < bv) {
          verdict = "improved";
        }
        rows.push_back(
            {m.name, format_value(bv, m.unit), format_value(cv, m.unit), change, verdict});
      } catch (const InputError& e) {
        c.status = TestCase::Status::kError;
        c.message = e.what();
        c.detail = c.message;
        problems.push_back(e.what());
        rows.push_back({m.name, "-", "-", "-", "ERROR"});
      }
      cases.push_back(std::move(c));
    }
    print_table(out, rows);
    for (const std::string& n : notes) out << "  note: " << n << "\n";
  }

  size_t failures = 0, errors = 0;
  for (const TestCase& c : cases) {
    failures += c.status == TestCase::Status::kFailure;
    errors += c.status == TestCase::Status::kError;
  }
  for (const std::string& p : problems) print_error(who, p);
  const bool junit_ok = emit_junit(resolved, cases, who);
  std::string verdict;
  if (errors > 0) {
    verdict = "ERROR: " + std::to_string(errors) + " of " + std::to_string(cases.size()) +
              " checks could not be evaluated";
  } else if (failures > 0) {
    verdict = "FAIL: " + std::to_string(failures) + " of " + std::to_string(cases.size()) +
              " checks breached";
  } else {
    verdict = cases.size() == 1 ? std::string("PASS: the check holds")
                                : "PASS: all " + std::to_string(cases.size()) + " checks hold";
  }
  out << "seer check   " << verdict << (plan.junit.empty() ? "" : "; JUnit: " + plan.junit) << "\n";
  if (errors > 0 || !junit_ok) return kExitUsage;
  return failures > 0 ? kExitBreach : kExitPass;
}

void add_check_options(CLI::App& cmd, CheckOptions& o, CLI::Option*& max_regression,
                       const std::string& assert_names = "--assert") {
  cmd.add_option(assert_names, o.asserts,
                 "A condition the summary must meet: METRIC OP VALUE[UNIT], OP one of <= < >= > "
                 "== !=, e.g. 'step_time_ms<=120' or 'peak_memory_gib<70GiB'. Repeatable")
      ->allow_extra_args(false);
  cmd.add_option("--baseline", o.baseline,
                 "A baseline summary.json: simulated_time_ms, step_time_ms, kernel_time_ms and "
                 "nccl_time_ms may not exceed it by more than --max-regression");
  max_regression = cmd.add_option("--max-regression", o.max_regression,
                                  "Allowed slowdown against --baseline: 5% or 0.05 (default 5%)");
  cmd.add_option("--junit", o.junit,
                 "Write the results as JUnit XML to this file (parent directories are created)");
}

// prepare() with its errors reported; returns false after an input error (exit 2). A baseline
// that cannot be read is recorded in the JUnit file too, when that path is known to be good.
bool prepare_reporting(const CheckOptions& options, Plan& plan, const std::string& who) {
  try {
    prepare(options, plan);
    return true;
  } catch (const InputError& e) {
    if (!options.baseline.empty() && !plan.baseline && !plan.junit.empty()) {
      input_failure(plan, who, "baseline", e.what());
    } else {
      print_error(who, e.what());
    }
    return false;
  }
}

}  // namespace

int check_summary(const std::string& summary_path, const CheckOptions& options, std::ostream& out,
                  const std::string& who) {
  Plan plan;
  if (!prepare_reporting(options, plan, who)) return kExitUsage;
  plan.properties.insert(plan.properties.begin(), {"summary", summary_path});
  return execute(plan, summary_path, out, who, {});
}

CheckCommand::CheckCommand(CLI::App& app) {
  sub_ = app.add_subcommand(
      "check",
      "Check a summary.json against assertions and a baseline: exits 0 when every check holds, "
      "1 on a breach, 2 on a usage or input error, 3 on an internal error");
  sub_->add_option("summary", summary_,
                   "The summary.json that seer run --out DIR wrote (or DIR). With no --assert and "
                   "no --baseline, prints its metrics")
      ->required();
  add_check_options(*sub_, options_, max_regression_);
}

bool CheckCommand::parsed() const { return sub_->parsed(); }

int CheckCommand::run() {
  options_.max_regression_given = max_regression_->count() > 0;
  try {
    return check_summary(summary_, options_, std::cout, "seer check");
  } catch (const std::exception& e) {
    print_error("seer check", std::string("internal error: ") + e.what());
    return kExitInternal;
  }
}

RunChecks::RunChecks(CLI::App& run_cmd) {
  CLI::App* group = run_cmd.add_option_group(
      "Checks", "Check DIR/summary.json after the run, as seer check does (needs --out DIR)");
  // `seer run ... --check 'step_time_ms<=120'` reads as well as --assert.
  add_check_options(*group, options_, max_regression_, "--assert,--check");
}

int RunChecks::run(const std::string& out_dir, const std::function<int()>& run_program) {
  options_.max_regression_given = max_regression_->count() > 0;
  if (!options_.any()) return run_program();
  const std::string who = "seer run: check";
  Plan plan;
  if (out_dir.empty()) {
    print_error(who,
                "--assert, --baseline, --max-regression and --junit need --out DIR (where the "
                "summary to check is written)");
    return kExitUsage;
  }
  try {
    if (!prepare_reporting(options_, plan, who)) return kExitUsage;
  } catch (const std::exception& e) {
    print_error(who, std::string("internal error: ") + e.what());
    return kExitInternal;
  }
  namespace fs = std::filesystem;
  const fs::path summary = fs::path(out_dir) / "summary.json";
  std::error_code ec;
  const auto before = fs::last_write_time(summary, ec);
  const bool existed = !ec;

  const int rc = run_program();

  try {
    const auto after = fs::last_write_time(summary, ec);
    const bool fresh = !ec && (!existed || after != before);
    plan.properties.insert(plan.properties.begin(), {"summary", summary.string()});
    if (rc == 0) return execute(plan, summary.string(), std::cerr, who, {});
    // The run failed: its exit code stands. Still check what it wrote, and say it in the JUnit.
    const std::string message = "the run exited with status " + std::to_string(rc) +
                                (fresh ? "" : " and wrote no summary; nothing was checked");
    std::vector<TestCase> cases = {
        {"seer.check.run", "seer run", TestCase::Status::kFailure, message, message}};
    print_error(who, message);
    if (fresh) {
      execute(plan, summary.string(), std::cerr, who, std::move(cases));
    } else {
      emit_junit(plan, cases, who);
    }
    return rc;
  } catch (const std::exception& e) {
    print_error(who, std::string("internal error: ") + e.what());
    return kExitInternal;
  }
}

}  // namespace seer::check
