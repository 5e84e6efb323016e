// TTIR as Triton 3.x prints it (MLIR generic-free form, one op per line): the kernel is
//   tt.func public @NAME(%in_ptr0: !tt.ptr<f32> {...} loc(...), %xnumel: i32 {...} loc(...)) ...
// SSA values are named after the Python variables of the kernel (Inductor: xoffset, xindex,
// r0_index, r0_offset, ...). An access's address depends on a size dimension when its pointer
// is computed from that dimension's index values (a make_range or loop variable named after it,
// or the program id along the dimension's grid axis); the dependence is followed through the
// operands of every op.

#include "triton_ir.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace seer::client {
namespace {

constexpr uint32_t kProgramBit = 1u << 31;

using ttir::scalar_bytes;
using ttir::split_params;
using ttir::trim;

bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '$' || c == '-';
}

// Every %name token of `s`, in order.
std::vector<std::string_view> values_in(std::string_view s) {
  std::vector<std::string_view> out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') continue;
    size_t j = i + 1;
    while (j < s.size() && ident_char(s[j])) ++j;
    if (j > i + 1) out.push_back(s.substr(i + 1, j - i - 1));
    i = j - 1;
  }
  return out;
}

// The dimension an index value's name belongs to, or -1.
int dim_of_name(std::string_view name, const std::vector<std::string>& dims) {
  auto index_of = [&](const char* size_name) {
    for (size_t d = 0; d < dims.size(); ++d) {
      if (dims[d] == size_name) return static_cast<int>(d);
    }
    return -1;
  };
  if (name.rfind("r0_", 0) == 0) {
    const int d = index_of("r0_numel");
    return d >= 0 ? d : index_of("rnumel");
  }
  if (name.rfind("r1_", 0) == 0) return index_of("r1_numel");
  if (name.size() >= 2 && name[0] == 'r' &&
      (name.rfind("rindex", 0) == 0 || name.rfind("roffset", 0) == 0 ||
       name.rfind("rbase", 0) == 0)) {
    const int d = index_of("rnumel");
    return d >= 0 ? d : index_of("r0_numel");
  }
  if (name.rfind("xindex", 0) == 0 || name.rfind("xoffset", 0) == 0) return index_of("xnumel");
  if (name.rfind("yindex", 0) == 0 || name.rfind("yoffset", 0) == 0) return index_of("ynumel");
  if (name.rfind("zindex", 0) == 0 || name.rfind("zoffset", 0) == 0) return index_of("znumel");
  return -1;
}

struct PtrType {
  uint32_t elem_bytes = 0;
  uint64_t tile = 1;
};

// Element size and tile of the first `tensor<AxBx!tt.ptr<T>>` or `!tt.ptr<T>` in `s`; with
// `plain_tensor`, the first `tensor<AxBxT>` (descriptor loads).
bool pointer_type(std::string_view s, bool plain_tensor, PtrType& out) {
  if (!plain_tensor) {
    const size_t p = s.find("!tt.ptr<");
    if (p == std::string_view::npos) return false;
    const size_t e = s.find('>', p);
    if (e == std::string_view::npos) return false;
    out.elem_bytes = static_cast<uint32_t>(scalar_bytes(s.substr(p + 8, e - p - 8)));
    const size_t t = s.rfind("tensor<", p);
    out.tile = 1;
    if (t != std::string_view::npos && s.find('>', t) > p) {
      std::string_view shape = s.substr(t + 7, p - t - 7);
      size_t i = 0;
      while (i < shape.size()) {
        uint64_t v = 0;
        bool digits = false;
        while (i < shape.size() && shape[i] >= '0' && shape[i] <= '9') {
          v = v * 10 + static_cast<uint64_t>(shape[i] - '0');
          digits = true;
          ++i;
        }
        if (digits) out.tile *= v;
        ++i;  // the 'x'
      }
    }
    return out.elem_bytes > 0;
  }
  const size_t t = s.find("tensor<");
  if (t == std::string_view::npos) return false;
  const size_t e = s.find('>', t);
  if (e == std::string_view::npos) return false;
  std::string_view body = s.substr(t + 7, e - t - 7);
  out.tile = 1;
  size_t last_x = body.rfind('x');
  if (last_x == std::string_view::npos) return false;
  out.elem_bytes = static_cast<uint32_t>(scalar_bytes(body.substr(last_x + 1)));
  std::string_view shape = body.substr(0, last_x);
  size_t i = 0;
  while (i <= shape.size()) {
    const size_t x = shape.find('x', i);
    std::string_view num =
        shape.substr(i, x == std::string_view::npos ? std::string_view::npos : x - i);
    out.tile *= std::strtoull(std::string(num).c_str(), nullptr, 10);
    if (x == std::string_view::npos) break;
    i = x + 1;
  }
  return out.elem_bytes > 0;
}

struct Parser {
  const std::vector<std::string>& dims;
  bool has_y = false, has_z = false;
  std::unordered_map<std::string, uint32_t> taint;

  uint32_t dim_bit(const char* size_name) const {
    for (size_t d = 0; d < dims.size(); ++d) {
      if (dims[d] == size_name) return 1u << d;
    }
    return 0;
  }

  uint32_t of(std::string_view rest) const {
    uint32_t t = 0;
    for (std::string_view v : values_in(rest)) {
      auto it = taint.find(std::string(v));
      if (it != taint.end()) t |= it->second;
    }
    return t;
  }

  uint32_t program_id_taint(std::string_view op) const {
    const size_t p = op.find("tt.get_program_id");
    const char axis = trim(op.substr(p + 17)).empty() ? 'x' : trim(op.substr(p + 17))[0];
    uint32_t bit = dim_bit("xnumel");
    if (axis == 'y' && has_y) bit = dim_bit("ynumel");
    if (axis == 'z') bit = has_z ? dim_bit("znumel") : has_y ? dim_bit("ynumel") : bit;
    return bit | kProgramBit;
  }
};

void add_access(wire::TritonKernel& model, const PtrType& type, uint32_t taint, bool atomic,
                uint64_t repeats, bool reused = false) {
  wire::TritonAccess* a = model.add_accesses();
  a->set_repeats(repeats);
  a->set_elem_bytes(type.elem_bytes);
  a->set_tile_elems(type.tile);
  a->set_dims(taint & ~kProgramBit);
  a->set_per_program((taint & kProgramBit) != 0);
  a->set_atomic(atomic);
  a->set_reused(reused);
}

// `tensor<AxBxT>`: its dimensions and element type, from the first such type in `s`.
bool tensor_type(std::string_view s, std::vector<uint64_t>& dims, std::string_view& elem) {
  const size_t t = s.find("tensor<");
  if (t == std::string_view::npos) return false;
  const size_t e = s.find('>', t);
  if (e == std::string_view::npos) return false;
  std::string_view body = s.substr(t + 7, e - t - 7);
  dims.clear();
  for (;;) {
    const size_t x = body.find('x');
    if (x == std::string_view::npos) break;
    const std::string_view num = body.substr(0, x);
    if (num.empty() || num.find_first_not_of("0123456789") != std::string_view::npos) break;
    dims.push_back(std::strtoull(std::string(num).c_str(), nullptr, 10));
    body.remove_prefix(x + 1);
  }
  elem = body;
  return !dims.empty();
}

// The math pipe of a tt.dot on elements `elem` (simcore's gemm DType numbering).
int dot_dtype(std::string_view elem, std::string_view op) {
  if (elem == "f16") return 3;
  if (elem == "bf16") return 4;
  if (elem.rfind("f8", 0) == 0) return 5;
  if (elem == "i8") return 6;
  if (elem == "f64") return 0;
  if (elem == "f32") return op.find("ieee") != std::string_view::npos ? 1 : 2;  // F32 : TF32
  return -1;
}

// The trip count of `scf.for %iv = %lb to %ub step %st` when all three are known constants.
uint64_t trips_of(std::string_view op, const std::unordered_map<std::string, int64_t>& constants) {
  const std::vector<std::string_view> v = values_in(op.substr(0, op.find(" iter_args")));
  if (v.size() < 4) return 0;
  auto value = [&](std::string_view n, int64_t& out) {
    auto it = constants.find(std::string(n));
    if (it == constants.end()) return false;
    out = it->second;
    return true;
  };
  int64_t lb = 0, ub = 0, step = 0;
  if (!value(v[1], lb) || !value(v[2], ub) || !value(v[3], step) || step <= 0 || ub <= lb) {
    return 0;
  }
  // ub > lb, so the span fits in uint64 even when ub - lb would overflow int64.
  const uint64_t span = static_cast<uint64_t>(ub) - static_cast<uint64_t>(lb);
  const uint64_t stride = static_cast<uint64_t>(step);
  return span / stride + (span % stride != 0 ? 1 : 0);
}

}  // namespace

bool parse_triton_ir(std::string_view text, std::string_view kernel, TritonIr& out) {
  TritonSignature sig;
  if (!parse_triton_signature(text, kernel, sig)) return false;
  out = TritonIr{};
  const std::vector<std::string>& dims = sig.size_names;
  for (const std::string& d : dims) out.model.add_size_names(d);
  out.size_params = sig.size_params;
  const size_t close = sig.body;
  const std::string name(kernel);
  out.model.set_reduction(name.rfind("triton_red_", 0) == 0 || name.rfind("triton_per_", 0) == 0);

  Parser parser{dims, false, false, {}};
  for (const std::string& d : dims) {
    parser.has_y |= d == "ynumel";
    parser.has_z |= d == "znumel";
  }
  std::unordered_map<std::string, int64_t> constants;
  std::vector<uint64_t> regions;  // trip count of each open region (1: not a loop or unknown)
  std::vector<int> region_ids;    // parallel to regions
  int next_region = 0;
  std::vector<int> access_region;  // innermost region of each load (-1: the body; stores -2)
  std::vector<bool> dot_region;    // by region id: it holds a tt.dot
  double dot_flops = 0;
  int dot_type = -1;
  size_t pos = text.find('\n', close);
  while (pos != std::string_view::npos && pos < text.size()) {
    const size_t end = text.find('\n', pos + 1);
    const std::string_view line = trim(text.substr(
        pos + 1, end == std::string_view::npos ? std::string_view::npos : end - pos - 1));
    pos = end;
    if (line.rfind("tt.func", 0) == 0) break;  // the next function
    if (line.empty() || line[0] == '#' || line[0] == '^') continue;

    if (line[0] == '}' && !regions.empty()) {
      regions.pop_back();
      region_ids.pop_back();
    }
    uint64_t repeats = 1;
    for (uint64_t r : regions) repeats *= r;
    std::string_view results, op = line;
    const size_t eq = line.find(" = ");
    if (line[0] == '%' && eq != std::string_view::npos) {
      results = line.substr(0, eq);
      op = line.substr(eq + 3);
    }
    uint32_t t = 0;
    if (op.rfind("tt.get_program_id", 0) == 0) {
      t = parser.program_id_taint(op);
    } else if (op.rfind("tt.make_range", 0) == 0) {
      const std::vector<std::string_view> r = values_in(results);
      const int d = r.empty() ? -1 : dim_of_name(r[0], dims);
      t = d >= 0 ? 1u << d : 0;
    } else if (op.rfind("scf.for", 0) == 0) {
      // scf.for %iv = %lb to %ub step %s iter_args(%acc = %init, ...) -> (...) {
      const std::vector<std::string_view> v = values_in(op);
      if (!v.empty()) {
        const int d = dim_of_name(v[0], dims);
        parser.taint[std::string(v[0])] = (d >= 0 ? 1u << d : 0) | parser.of(op.substr(1));
      }
      const size_t iter = op.find("iter_args(");
      if (iter != std::string_view::npos) {
        for (std::string_view arg :
             split_params(op.substr(iter + 10, op.find(')', iter) - iter - 10))) {
          const std::vector<std::string_view> names = values_in(arg);
          if (names.size() >= 2) parser.taint[std::string(names[0])] = parser.of(names[1]);
        }
      }
      t = parser.of(op);
    } else {
      t = parser.of(op);
    }
    for (std::string_view r : values_in(results)) parser.taint[std::string(r)] = t;
    if (line.back() == '{') {
      const uint64_t trips = op.rfind("scf.for", 0) == 0 ? trips_of(op, constants) : 1;
      regions.push_back(trips > 0 ? trips : 1);
      region_ids.push_back(next_region++);
      dot_region.push_back(false);
    }
    if (op.rfind("arith.constant ", 0) == 0 && !results.empty()) {
      const std::string_view v = trim(op.substr(15));
      if (!v.empty() && (v[0] == '-' || (v[0] >= '0' && v[0] <= '9'))) {
        const std::vector<std::string_view> r = values_in(results);
        if (!r.empty())
          constants[std::string(r[0])] = std::strtoll(std::string(v).c_str(), nullptr, 10);
      }
    }
    if (op.rfind("tt.dot ", 0) == 0) {
      // %d = tt.dot %a, %b, %c : tensor<MxKxT> * tensor<KxNxT> -> tensor<MxNxT2>
      const size_t colon = op.rfind(" : ");
      const size_t star = op.find(" * ", colon == std::string_view::npos ? 0 : colon);
      std::vector<uint64_t> a, b;
      std::string_view ea, eb;
      if (colon != std::string_view::npos && star != std::string_view::npos &&
          tensor_type(op.substr(colon), a, ea) && tensor_type(op.substr(star), b, eb) &&
          a.size() >= 2 && b.size() >= 2) {
        const double m = static_cast<double>(a[a.size() - 2]), k = static_cast<double>(a.back());
        const double n = static_cast<double>(b.back());
        double batch = 1;
        for (size_t d = 0; d + 2 < a.size(); ++d) batch *= static_cast<double>(a[d]);
        dot_flops += 2 * m * n * k * batch * static_cast<double>(repeats);
        if (dot_type < 0) dot_type = dot_dtype(ea, op);
        if (!region_ids.empty()) dot_region[static_cast<size_t>(region_ids.back())] = true;
      }
      continue;
    }

    const bool load = op.rfind("tt.load ", 0) == 0;
    const bool store = op.rfind("tt.store ", 0) == 0;
    const bool atomic = op.rfind("tt.atomic_rmw ", 0) == 0 || op.rfind("tt.atomic_cas ", 0) == 0;
    const bool desc_load = op.rfind("tt.descriptor_load ", 0) == 0;
    const bool desc_store = op.rfind("tt.descriptor_store ", 0) == 0;
    if (!load && !store && !atomic && !desc_load && !desc_store) continue;
    const size_t colon = op.rfind(" : ");
    if (colon == std::string_view::npos) continue;
    PtrType type;
    if (load || store || atomic) {
      const std::vector<std::string_view> v = values_in(op.substr(0, colon));
      if (v.empty() || !pointer_type(op.substr(colon), false, type)) continue;
      auto it = parser.taint.find(std::string(v[0]));
      add_access(out.model, type, it != parser.taint.end() ? it->second : 0, atomic, repeats,
                 load && op.find("evict_last") != std::string_view::npos);
      access_region.push_back(load && !region_ids.empty() ? region_ids.back() : -1);
    } else {
      // Descriptor (TMA) ops: the tile is the tensor type; the address is the index operands.
      const size_t arrow = op.find("-> ", colon);
      const std::string_view type_text =
          desc_load && arrow != std::string_view::npos ? op.substr(arrow) : op.substr(colon);
      if (!pointer_type(type_text, true, type)) continue;
      const size_t open = op.find('[');
      const size_t shut = op.find(']', open == std::string_view::npos ? 0 : open);
      const uint32_t index_taint = open != std::string_view::npos && shut != std::string_view::npos
                                       ? parser.of(op.substr(open, shut - open))
                                       : 0;
      add_access(out.model, type, index_taint, false, repeats);
      access_region.push_back(desc_load && !region_ids.empty() ? region_ids.back() : -1);
    }
  }
  // A matrix product's operand tiles are re-read by every program of its row or column block:
  // L2 serves them (loads in a loop that holds a tt.dot); the product is timed by its FLOPs.
  for (size_t a = 0; a < access_region.size(); ++a) {
    if (access_region[a] >= 0 && dot_region[static_cast<size_t>(access_region[a])]) {
      out.model.mutable_accesses(static_cast<int>(a))->set_reused(true);
    }
  }
  if (dot_flops > 0) {
    out.model.set_dot_flops_per_program(dot_flops);
    out.model.set_dot_dtype(dot_type);
  }
  return true;
}

const TritonIr* find_triton_ir(const std::string& kernel, const std::string& module_path,
                               const void* image, size_t image_bytes) {
  static std::mutex mu;
  static auto* by_entry = new std::map<std::string, std::unique_ptr<TritonIr>>();
  const std::string dir = triton_cache_entry(kernel, module_path, image, image_bytes);
  if (dir.empty()) return nullptr;
  const std::string key = dir + "/" + kernel;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = by_entry->find(key); it != by_entry->end()) return it->second.get();
  std::string text;
  auto ir = std::make_unique<TritonIr>();
  if (!read_text_file(dir + "/" + kernel + ".ttir", text) || !parse_triton_ir(text, kernel, *ir)) {
    by_entry->emplace(key, nullptr);
    return nullptr;
  }
  return by_entry->emplace(key, std::move(ir)).first->second.get();
}

}  // namespace seer::client
