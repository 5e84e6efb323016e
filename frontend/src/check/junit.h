// JUnit XML for `seer check --junit FILE`: one <testsuite name="seer check">, one <testcase> per
// assertion and per baseline comparison, <failure> on a breach, <error> when a check could not be
// evaluated (its input lacked what it needed).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace seer::check {

struct TestCase {
  enum class Status { kPass, kFailure, kError };
  std::string classname;  // "seer.check.assert", "seer.check.baseline", "seer.check.input"
  std::string name;
  Status status = Status::kPass;
  std::string message;  // one line: the <failure>/<error> message attribute
  std::string detail;   // the element's text
};

// Text safe inside an XML 1.0 attribute or element: & < > " ' escaped, control characters that
// XML cannot carry written as U+FFFD, invalid UTF-8 bytes replaced by U+FFFD.
std::string xml_escape(std::string_view text);

// The whole document.
std::string junit_xml(const std::vector<TestCase>& cases,
                      const std::vector<std::pair<std::string, std::string>>& properties);

// Throws InputError when `path` clearly cannot be written: it is a directory, or its nearest
// existing ancestor is not a writable directory. Creates nothing.
void check_junit_path(const std::string& path);

// Writes the document, creating missing parent directories. Throws InputError on failure.
void write_junit(const std::string& path, const std::string& xml);

}  // namespace seer::check
