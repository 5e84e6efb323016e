#include "aten_names.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <utility>

namespace seer::sim::aten_names {
namespace {

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

std::string template_args(const std::string& name) {
  const size_t open = name.find('<');
  const size_t close = name.rfind(">(");
  if (open == std::string::npos || close == std::string::npos || close <= open) return {};
  return name.substr(open + 1, close - open - 1);
}

std::vector<std::string> split_args(const std::string& args) {
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == '<' || args[i] == '(') ++depth;
    if (args[i] == '>' || args[i] == ')') --depth;
    if (args[i] == ',' && depth == 0) {
      out.push_back(args.substr(start, i - start));
      start = std::min(i + 2, args.size());
    }
  }
  out.push_back(args.substr(start));
  return out;
}

int first_element_bytes(const std::string& args) {
  static const std::pair<const char*, int> kTypes[] = {{"c10::BFloat16", 2},
                                                       {"cutlass::bfloat16_t", 2},
                                                       {"c10::Half", 2},
                                                       {"cutlass::half_t", 2},
                                                       {"c10::Float8_e4m3fn", 1},
                                                       {"c10::Float8_e5m2", 1},
                                                       {"c10::complex<double>", 16},
                                                       {"c10::complex<float>", 8},
                                                       {"double", 8},
                                                       {"float", 4},
                                                       {"long", 8},
                                                       {"int", 4},
                                                       {"short", 2},
                                                       {"bool", 1},
                                                       {"unsigned char", 1},
                                                       {"signed char", 1}};
  size_t best = std::string::npos;
  int bytes = 0;
  for (const auto& [type, size] : kTypes) {
    const std::string t = type;
    const bool qualified = t.find("::") != std::string::npos;
    for (size_t at = args.find(t); at != std::string::npos; at = args.find(t, at + 1)) {
      const bool starts = at == 0 || !word_char(args[at - 1]) || qualified;
      const size_t end = at + t.size();
      const bool ends = end >= args.size() || !word_char(args[end]);
      if (starts && ends) {
        if (at < best) {
          best = at;
          bytes = size;
        }
        break;
      }
    }
  }
  return bytes;
}

int opaque_type_bytes(const std::string& args) {
  const std::string head = "OpaqueType<";
  const size_t at = args.find(head);
  if (at == std::string::npos) return 0;
  // strtol saturates instead of overflowing; no PyTorch OpaqueType is wider than a few bytes.
  const long k = std::strtol(args.c_str() + at + head.size(), nullptr, 10);
  return k > 0 && k <= 1024 ? static_cast<int>(k) : 0;
}

long template_int(const std::string& arg) {
  if (arg.empty() || !std::isdigit(static_cast<unsigned char>(arg[0]))) return -1;
  return std::strtol(arg.c_str(), nullptr, 10);
}

bool template_true(const std::string& arg) { return arg == "true"; }

}  // namespace seer::sim::aten_names
