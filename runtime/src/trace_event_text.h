#pragma once

// Trace events written straight to JSON text. A run's trace holds millions of events; building
// an nlohmann::ordered_json object for each, dumping and freeing it took most of the time spent
// writing trace.json (1.5 s of a 128-rank sweep's 30).

#include <charconv>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace seer::rt {

class TraceEventText {
 public:
  // Starts the next event of the array: a comma after the previous one, then its opening brace.
  TraceEventText& begin() {
    if (!json_.empty()) json_ += ',';
    json_ += '{';
    first_ = true;
    return *this;
  }
  // Closes the innermost open object (the event, or one opened by object()).
  TraceEventText& end() {
    json_ += '}';
    first_ = false;
    return *this;
  }
  TraceEventText& object(std::string_view key) {
    name(key);
    json_ += '{';
    first_ = true;
    return *this;
  }

  TraceEventText& text(std::string_view key, std::string_view value) {
    name(key);
    quoted(value);
    return *this;
  }
  template <typename T>
  requires std::integral<T> || std::floating_point<T> TraceEventText& number(std::string_view key,
                                                                             T value) {
    name(key);
    append(value);
    return *this;
  }
  TraceEventText& numbers(std::string_view key, std::initializer_list<std::int64_t> values) {
    name(key);
    json_ += '[';
    bool first = true;
    for (std::int64_t v : values) {
      if (!first) json_ += ',';
      first = false;
      append(v);
    }
    json_ += ']';
    return *this;
  }

  // An event given as a JSON value, for the few that are not worth writing field by field.
  void push_back(const nlohmann::ordered_json& event) {
    if (!json_.empty()) json_ += ',';
    json_ += event.dump(-1, ' ', false, kReplaceInvalidUtf8);
  }

  // The array's elements, comma-separated.
  const std::string& json() const { return json_; }

 private:
  // A name with a stray byte (an NVTX range's, say) is written with U+FFFD in its place rather
  // than losing the whole report.
  static constexpr auto kReplaceInvalidUtf8 = nlohmann::json::error_handler_t::replace;

  void name(std::string_view key) {
    if (!first_) json_ += ',';
    first_ = false;
    quoted(key);
    json_ += ':';
  }

  // Plain printable ASCII is copied; anything else goes through nlohmann, which escapes it the
  // way the rest of the reports do (invalid UTF-8 becomes U+FFFD there too).
  void quoted(std::string_view s) {
    for (const char c : s) {
      const auto u = static_cast<unsigned char>(c);
      if (u < 0x20 || u >= 0x80 || c == '"' || c == '\\') {
        json_ += nlohmann::json(std::string(s)).dump(-1, ' ', false, kReplaceInvalidUtf8);
        return;
      }
    }
    json_ += '"';
    json_ += s;
    json_ += '"';
  }

  template <typename T>
  void append(T value) {
    if constexpr (std::floating_point<T>) {
      if (!std::isfinite(value)) {
        json_ += "null";  // as nlohmann writes them
        return;
      }
    }
    char buffer[32];
    const char* end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
    const std::string_view digits(buffer, static_cast<std::size_t>(end - buffer));
    json_ += digits;
    if constexpr (std::floating_point<T>) {
      // A whole number stays a JSON float, as nlohmann writes it: 3.0, not 3.
      if (digits.find_first_of(".e") == std::string_view::npos) json_ += ".0";
    }
  }

  std::string json_;
  bool first_ = true;
};

}  // namespace seer::rt
