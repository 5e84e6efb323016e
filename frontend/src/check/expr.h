// What the user writes on the `seer check` command line: assertions ("step_time_ms<=120",
// "peak_memory_gib < 70GiB") and the allowed regression ("5%", "0.05"). Parsing is strict: any
// text that is not exactly a known metric, an operator, a number and a unit that fits the
// metric is an InputError.
#pragma once

#include <string>

#include "metrics.h"

namespace seer::check {

enum class Op { kLe, kLt, kGe, kGt, kEq, kNe };

const char* op_text(Op op);

struct Assertion {
  std::string text;  // as written, surrounding blanks removed
  Metric metric;
  Op op = Op::kLe;
  double value = 0;  // in the metric's unit (ms, GiB, bytes, GB/s, count)
};

// Parses METRIC OP NUMBER[UNIT]; blanks are allowed around OP and before UNIT.
Assertion parse_assertion(const std::string& text);

// Whether `actual` satisfies the assertion. == and != compare to within 1 part in 10^9.
bool holds(const Assertion& a, double actual);

// "5%" -> 0.05, "0.05" -> 0.05, "150%" -> 1.5. A bare number must be a fraction in [0, 1].
double parse_max_regression(const std::string& text);

}  // namespace seer::check
