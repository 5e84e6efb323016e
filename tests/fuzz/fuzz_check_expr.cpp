// `seer check`'s command-line parsers (frontend/src/check/expr.h): --assert texts and
// --max-regression values are either parsed or rejected with InputError.

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "expr.h"
#include "metrics.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const seer::check::Assertion a = seer::check::parse_assertion(text);
    if (!seer::check::find_metric(a.metric.name) || !std::isfinite(a.value)) std::abort();
    (void)seer::check::holds(a, a.value);
    (void)seer::check::format_value(a.value, a.metric.unit);
  } catch (const seer::check::InputError&) {
  }
  try {
    const double r = seer::check::parse_max_regression(text);
    if (!std::isfinite(r) || r < 0) std::abort();
  } catch (const seer::check::InputError&) {
  }
  return 0;
}
