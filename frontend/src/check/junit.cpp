#include "junit.h"

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "metrics.h"

namespace seer::check {
namespace {

constexpr const char* kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the valid UTF-8 sequence at text[i], or 0 when it is not one.
size_t utf8_length(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = byte(i);
  size_t n = 0;
  uint32_t cp = 0;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2, cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3, cp = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4, cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF) return 0;
  if (cp >= 0xD800 && cp <= 0xDFFF) return 0;  // surrogates
  if (cp == 0xFFFE || cp == 0xFFFF) return 0;  // not XML characters
  return n;
}

std::string attr(const std::string& name, const std::string& value) {
  return " " + name + "=\"" + xml_escape(value) + "\"";
}

}  // namespace

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      case '\n':
        out += "&#10;";  // kept through attribute-value normalization
        break;
      case '\t':
        out += "&#9;";
        break;
      case '\r':
        out += "&#13;";
        break;
      default: {
        const unsigned char u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7F) {
          out += kReplacement;
          break;
        }
        const size_t n = utf8_length(text, i);
        if (n == 0) {
          out += kReplacement;
          ++i;
          continue;
        }
        out.append(text.substr(i, n));
        i += n;
        continue;
      }
    }
    ++i;
  }
  return out;
}

std::string junit_xml(const std::vector<TestCase>& cases,
                      const std::vector<std::pair<std::string, std::string>>& properties) {
  size_t failures = 0, errors = 0;
  for (const TestCase& c : cases) {
    if (c.status == TestCase::Status::kFailure) ++failures;
    if (c.status == TestCase::Status::kError) ++errors;
  }
  const std::string counts = attr("tests", std::to_string(cases.size())) +
                             attr("failures", std::to_string(failures)) +
                             attr("errors", std::to_string(errors));
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x += "<testsuites" + attr("name", "seer check") + counts + ">\n";
  x += "  <testsuite" + attr("name", "seer check") + counts + attr("skipped", "0") +
       attr("time", "0") + ">\n";
  if (!properties.empty()) {
    x += "    <properties>\n";
    for (const auto& [name, value] : properties) {
      x += "      <property" + attr("name", name) + attr("value", value) + "/>\n";
    }
    x += "    </properties>\n";
  }
  for (const TestCase& c : cases) {
    x +=
        "    <testcase" + attr("name", c.name) + attr("classname", c.classname) + attr("time", "0");
    if (c.status == TestCase::Status::kPass) {
      x += "/>\n";
      continue;
    }
    const bool failure = c.status == TestCase::Status::kFailure;
    const char* element = failure ? "failure" : "error";
    x += ">\n      <" + std::string(element) + attr("message", c.message) +
         attr("type", failure ? "breach" : "input") + ">" + xml_escape(c.detail) + "</" + element +
         ">\n    </testcase>\n";
  }
  x += "  </testsuite>\n</testsuites>\n";
  return x;
}

void check_junit_path(const std::string& path) {
  namespace fs = std::filesystem;
  if (path.empty()) throw InputError("--junit: empty file name");
  std::error_code ec;
  const fs::path p = fs::absolute(path, ec);
  if (ec) throw InputError("--junit " + path + ": " + ec.message());
  if (fs::is_directory(p, ec)) {
    throw InputError("cannot write JUnit report " + path + ": it is a directory");
  }
  fs::path dir = p.parent_path();
  while (!dir.empty() && !fs::exists(dir, ec)) {
    if (dir == dir.parent_path()) break;
    dir = dir.parent_path();
  }
  if (!fs::is_directory(dir, ec)) {
    throw InputError("cannot write JUnit report " + path + ": " + dir.string() +
                     " is not a directory");
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    throw InputError("cannot write JUnit report " + path + ": " + dir.string() + ": " +
                     std::strerror(errno));
  }
}

void write_junit(const std::string& path, const std::string& xml) {
  namespace fs = std::filesystem;
  check_junit_path(path);
  std::error_code ec;
  const fs::path parent = fs::absolute(path, ec).parent_path();
  if (!ec) fs::create_directories(parent, ec);
  if (ec) throw InputError("cannot write JUnit report " + path + ": " + ec.message());
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw InputError("cannot write JUnit report " + path + ": " + std::strerror(errno));
  f << xml;
  f.close();
  if (!f) throw InputError("cannot write JUnit report " + path + ": " + std::strerror(errno));
}

}  // namespace seer::check
