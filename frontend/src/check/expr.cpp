#include "expr.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string_view>

namespace seer::check {
namespace {

bool blank(char c) { return c == ' ' || c == '\t'; }

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && blank(s[b])) ++b;
  while (e > b && blank(s[e - 1])) --e;
  return s.substr(b, e - b);
}

// Scans a plain decimal number at s[pos]: digits, an optional fraction, an optional exponent.
// No sign, no "inf"/"nan"/hex (strtod alone would take those). Returns the length, 0 if none.
size_t scan_number(std::string_view s, size_t pos) {
  size_t i = pos;
  size_t digits = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
  }
  if (digits == 0) return 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
    size_t exp_digits = 0;
    while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j, ++exp_digits;
    if (exp_digits > 0) i = j;
  }
  return i - pos;
}

// Turns `value`, written with `suffix`, into the metric's unit; false when the suffix does not
// fit the unit. Divisions (not multiplications by 1e-6) keep "11368398ns" equal to the
// value computed from simulated_time_ns.
bool convert(Unit unit, const std::string& suffix, double& value) {
  if (suffix.empty()) return true;
  switch (unit) {
    case Unit::kMilliseconds:
      if (suffix == "ns") {
        value /= 1e6;
      } else if (suffix == "us") {
        value /= 1e3;
      } else if (suffix == "s") {
        value *= 1e3;
      } else if (suffix != "ms") {
        return false;
      }
      return true;
    case Unit::kGiB:
    case Unit::kBytes: {
      double bytes = 0;
      if (suffix == "B") {
        bytes = 1;
      } else if (suffix == "KiB") {
        bytes = 1024.0;
      } else if (suffix == "MiB") {
        bytes = 1048576.0;
      } else if (suffix == "GiB") {
        bytes = 1073741824.0;
      } else if (suffix == "TiB") {
        bytes = 1099511627776.0;
      } else {
        return false;
      }
      if (unit == Unit::kBytes) {
        value *= bytes;
      } else if (bytes < 1073741824.0) {
        value /= 1073741824.0 / bytes;
      } else {
        value *= bytes / 1073741824.0;
      }
      return true;
    }
    case Unit::kGBPerSecond:
      return suffix == "GB/s";
    case Unit::kCount:
      return false;
  }
  return false;
}

}  // namespace

const char* op_text(Op op) {
  switch (op) {
    case Op::kLe:
      return "<=";
    case Op::kLt:
      return "<";
    case Op::kGe:
      return ">=";
    case Op::kGt:
      return ">";
    case Op::kEq:
      return "==";
    case Op::kNe:
      return "!=";
  }
  return "?";
}

Assertion parse_assertion(const std::string& raw) {
  Assertion a;
  a.text = trim(raw);
  const std::string& s = a.text;
  const std::string form =
      "; write METRIC OP VALUE[UNIT] with OP one of <= < >= > == !=, e.g. 'step_time_ms<=120'";
  if (s.empty()) throw InputError("empty --assert" + form);

  // METRIC: a name, optionally ":Op" (busbw_gbs:AllReduce).
  size_t i = 0;
  while (i < s.size() &&
         (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_' || s[i] == ':'))
    ++i;
  const std::string name = s.substr(0, i);
  if (name.empty()) throw InputError("bad --assert '" + s + "': no metric name" + form);

  size_t j = i;
  while (j < s.size() && blank(s[j])) ++j;
  const std::string_view rest = std::string_view(s).substr(j);
  size_t op_len = 0;
  if (rest.starts_with("<=")) {
    a.op = Op::kLe, op_len = 2;
  } else if (rest.starts_with(">=")) {
    a.op = Op::kGe, op_len = 2;
  } else if (rest.starts_with("==")) {
    a.op = Op::kEq, op_len = 2;
  } else if (rest.starts_with("!=")) {
    a.op = Op::kNe, op_len = 2;
  } else if (rest.starts_with("<")) {
    a.op = Op::kLt, op_len = 1;
  } else if (rest.starts_with(">")) {
    a.op = Op::kGt, op_len = 1;
  }
  if (op_len == 0) {
    throw InputError("bad --assert '" + s + "': no comparison operator after '" + name + "'" +
                     form);
  }

  const std::optional<Metric> metric = find_metric(name);
  if (!metric) {
    throw InputError("bad --assert '" + s + "': unknown metric '" + name + "'; " + known_metrics());
  }
  a.metric = *metric;

  size_t k = j + op_len;
  while (k < s.size() && blank(s[k])) ++k;
  const size_t len = scan_number(s, k);
  if (len == 0) {
    throw InputError("bad --assert '" + s + "': expected a number after '" + op_text(a.op) + "'" +
                     form);
  }
  a.value = std::strtod(s.substr(k, len).c_str(), nullptr);
  if (!std::isfinite(a.value)) {
    throw InputError("bad --assert '" + s + "': the number is out of range");
  }
  size_t u = k + len;
  while (u < s.size() && blank(s[u])) ++u;
  const std::string suffix = s.substr(u);
  if (!convert(a.metric.unit, suffix, a.value)) {
    throw InputError("bad --assert '" + s + "': '" + suffix + "' is not a unit for " + name +
                     " (allowed: " + unit_suffixes(a.metric.unit) + ")");
  }
  return a;
}

bool holds(const Assertion& a, double actual) {
  const double scale = std::max(std::fabs(actual), std::fabs(a.value));
  const bool equal = std::fabs(actual - a.value) <= 1e-9 * scale;
  switch (a.op) {
    case Op::kLe:
      return actual <= a.value || equal;
    case Op::kLt:
      return actual < a.value && !equal;
    case Op::kGe:
      return actual >= a.value || equal;
    case Op::kGt:
      return actual > a.value && !equal;
    case Op::kEq:
      return equal;
    case Op::kNe:
      return !equal;
  }
  return false;
}

double parse_max_regression(const std::string& raw) {
  const std::string s = trim(raw);
  const std::string form = "; write a percentage like 5% or a fraction like 0.05";
  if (!s.empty() && s[0] == '-') {
    throw InputError("bad --max-regression '" + s + "': it cannot be negative" + form);
  }
  const size_t len = scan_number(s, 0);
  if (len == 0) throw InputError("bad --max-regression '" + s + "'" + form);
  double v = std::strtod(s.substr(0, len).c_str(), nullptr);
  size_t i = len;
  while (i < s.size() && blank(s[i])) ++i;
  const std::string suffix = s.substr(i);
  if (suffix == "%") {
    v /= 100;
  } else if (!suffix.empty()) {
    throw InputError("bad --max-regression '" + s + "'" + form);
  } else if (v > 1) {
    throw InputError("bad --max-regression '" + s + "': a bare number is a fraction (0.05 = 5%); " +
                     "did you mean " + s + "%?");
  }
  if (!std::isfinite(v)) throw InputError("bad --max-regression '" + s + "'" + form);
  return v;
}

}  // namespace seer::check
