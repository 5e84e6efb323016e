// `seer check`'s readers (frontend/src/check/): the input is a summary.json and, after the
// first NUL byte, a baseline summary.json (the summary itself when there is none). Both go
// through check_summary as the CLI calls it: once only printing the metrics, once with an
// assertion on every metric, the baseline comparison and a JUnit file. Bad input must end as
// an exit code (InputError -> 2); any exception escaping check_summary is an internal error
// (exit 3 in the CLI) and a finding.

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "check.h"
#include "expr.h"
#include "metrics.h"

namespace {

const std::string& work_dir() {
  static const std::string dir = [] {
    std::string templ = "/dev/shm/seer-fuzz-check-XXXXXX";
    if (!mkdtemp(templ.data())) std::abort();
    return templ;
  }();
  return dir;
}

void write(const std::string& path, std::string_view text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(text.data(), text.size());
}

std::vector<std::string> every_metric_asserted() {
  std::vector<std::string> out;
  for (const seer::check::Metric& m : seer::check::metric_table()) {
    std::string name = m.name;
    if (const size_t colon = name.find(":<"); colon != std::string::npos) {
      name = name.substr(0, colon) + ":AllReduce";
    }
    out.push_back(name + " <= 1");
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string summary = work_dir() + "/summary.json";
  const std::string baseline = work_dir() + "/baseline.json";
  write(summary, input.substr(0, nul));
  write(baseline, nul == std::string_view::npos ? input : input.substr(nul + 1));

  std::ostringstream out;
  std::ostringstream err;
  std::streambuf* old_err = std::cerr.rdbuf(err.rdbuf());
  seer::check::check_summary(summary, {}, out, "fuzz");
  static const std::vector<std::string> asserts = every_metric_asserted();
  seer::check::CheckOptions o;
  o.asserts = asserts;
  o.baseline = baseline;
  o.max_regression = "5%";
  o.max_regression_given = true;
  o.junit = work_dir() + "/junit.xml";
  const int code = seer::check::check_summary(summary, o, out, "fuzz");
  std::cerr.rdbuf(old_err);
  if (code != seer::check::kExitPass && code != seer::check::kExitBreach &&
      code != seer::check::kExitUsage) {
    std::abort();
  }
  return 0;
}
