// The metrics `seer check` reads from a summary.json (schema "seer.summary", version 1). Each
// metric is documented in README.md next to this file; the table here is the single source.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace seer::check {

// A problem with what the user gave us (a file, an option): `seer check` exits 2.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What a metric's numbers are; decides the unit suffixes an assertion may use.
enum class Unit {
  kMilliseconds,  // suffixes ns, us, ms, s
  kGiB,           // suffixes B, KiB, MiB, GiB, TiB
  kBytes,         // suffixes B, KiB, MiB, GiB, TiB
  kGBPerSecond,   // suffix GB/s
  kCount,         // no suffix
};

struct Metric {
  std::string name;  // "busbw_gbs:<Op>" in the table; "busbw_gbs:AllReduce" once resolved
  Unit unit;
  bool compared_to_baseline;  // lower is better; checked against --max-regression
  std::string description;
};

// Every metric, in the order reports list them ("busbw_gbs:<Op>" stands for the family).
const std::vector<Metric>& metric_table();

// The metric called `name` ("busbw_gbs:AllReduce" resolves the family), or nullopt.
std::optional<Metric> find_metric(const std::string& name);

// "known metrics: simulated_time_ms, ..." for error messages.
std::string known_metrics();

// The unit's name as printed after values ("ms", "GiB", "" for counts).
const char* unit_name(Unit unit);
// The suffixes an assertion may put after a value of this unit, for messages.
const char* unit_suffixes(Unit unit);

// A value with its unit, for tables and messages: "11.3684 ms", "536870912 B", "16".
std::string format_value(double value, Unit unit);

// A parsed and schema-checked summary.json.
struct Summary {
  std::string path;  // as the user named it (the file, not a directory)
  nlohmann::json json;
};

// Reads `path` (a summary.json, or a directory holding one). Throws InputError naming the file
// when it cannot be read, is not JSON, or is not a "seer.summary" of schema_version 1.
Summary load_summary(const std::string& path);

// Whether the summary has step statistics (a "steps" object with a non-zero count).
bool has_steps(const Summary& summary);

// The metric's value in `summary`. Throws InputError naming the file when the summary lacks what
// the metric needs (no steps, no collective of that operation) or a field has the wrong type.
double metric_value(const Summary& summary, const std::string& metric);

}  // namespace seer::check
