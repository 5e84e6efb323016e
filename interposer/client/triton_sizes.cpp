// A Triton kernel's size arguments, from the signature of its TTIR (as Triton 3.x prints it):
//   tt.func public @NAME(%in_ptr0: !tt.ptr<f32> {...} loc(...), %xnumel: i32 {...} loc(...)) ...

#include "triton_sizes.h"

#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>

namespace seer::client {
namespace ttir {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split_params(std::string_view s) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '(' || c == '{' || c == '<' || c == '[') ++depth;
    if (c == ')' || c == '}' || c == '>' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  if (start < s.size()) out.push_back(trim(s.substr(start)));
  return out;
}

int scalar_bytes(std::string_view type) {
  if (type == "i1" || type == "i8" || type == "f8E4M3FN" || type == "f8E5M2") return 1;
  if (type == "i16" || type == "f16" || type == "bf16") return 2;
  if (type == "i32" || type == "f32") return 4;
  if (type == "i64" || type == "f64") return 8;
  if (type.rfind("f8", 0) == 0) return 1;
  return 0;
}

}  // namespace ttir

namespace {

// Inductor's size arguments, in the order the model names them.
constexpr const char* kSizeNames[] = {"xnumel",   "ynumel",   "znumel",
                                      "r0_numel", "r1_numel", "rnumel"};

std::string directory_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// Triton's cache roots: TRITON_CACHE_DIR, ~/.triton/cache, and Inductor's per-device caches.
std::vector<std::string> cache_roots() {
  std::vector<std::string> roots;
  if (const char* d = std::getenv("TRITON_CACHE_DIR"); d && *d) roots.emplace_back(d);
  if (const char* h = std::getenv("HOME"); h && *h)
    roots.push_back(std::string(h) + "/.triton/cache");
  std::string inductor;
  if (const char* d = std::getenv("TORCHINDUCTOR_CACHE_DIR"); d && *d) {
    inductor = d;
  } else if (const char* u = std::getenv("USER"); u && *u) {
    inductor = std::string("/tmp/torchinductor_") + u;
  } else {
    inductor = "/tmp/torchinductor_root";
  }
  const std::string triton_dir = inductor + "/triton";
  if (DIR* dir = ::opendir(triton_dir.c_str())) {
    while (dirent* e = ::readdir(dir)) {
      if (e->d_name[0] != '.') roots.push_back(triton_dir + "/" + e->d_name);
    }
    ::closedir(dir);
  }
  return roots;
}

// The cache entry directory whose `<kernel>.cubin` holds exactly `image`.
std::string find_cache_entry(const std::string& kernel, const void* image, size_t bytes) {
  std::string content;
  for (const std::string& root : cache_roots()) {
    DIR* dir = ::opendir(root.c_str());
    if (!dir) continue;
    std::string found;
    while (dirent* e = ::readdir(dir)) {
      if (e->d_name[0] == '.') continue;
      const std::string entry = root + "/" + e->d_name;
      const std::string cubin = entry + "/" + kernel + ".cubin";
      struct stat st {};
      if (::stat(cubin.c_str(), &st) != 0) continue;
      if (bytes && static_cast<size_t>(st.st_size) != bytes) continue;
      if (!read_text_file(cubin, content) || content.size() < 64) continue;
      if (std::memcmp(content.data(), image, bytes ? bytes : content.size()) == 0) {
        found = entry;
        break;
      }
    }
    ::closedir(dir);
    if (!found.empty()) return found;
  }
  return {};
}

}  // namespace

bool parse_triton_signature(std::string_view text, std::string_view kernel, TritonSignature& out) {
  const std::string head = "tt.func public @" + std::string(kernel) + "(";
  const size_t f = text.find(head);
  if (f == std::string_view::npos) return false;
  // The parameter list ends at the ')' that closes the one after the name.
  const size_t i = f + head.size();
  int depth = 1;
  size_t close = i;
  for (; close < text.size() && depth > 0; ++close) {
    if (text[close] == '(') ++depth;
    if (text[close] == ')') --depth;
  }
  if (depth != 0) return false;
  const std::vector<std::string_view> params = ttir::split_params(text.substr(i, close - 1 - i));

  out = TritonSignature{};
  out.body = close;
  std::map<int, TritonSizeParam> size_at;  // canonical order -> where
  for (size_t p = 0; p < params.size(); ++p) {
    const std::string_view param = params[p];
    if (param.empty() || param[0] != '%') continue;
    const size_t colon = param.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view name = param.substr(1, colon - 1);
    std::string_view type = ttir::trim(param.substr(colon + 1));
    type = type.substr(0, type.find(' '));
    for (size_t k = 0; k < std::size(kSizeNames); ++k) {
      if (name == kSizeNames[k] && (type == "i32" || type == "i64")) {
        size_at[static_cast<int>(k)] = {static_cast<int>(p), ttir::scalar_bytes(type)};
      }
    }
  }
  for (const auto& [k, at] : size_at) {
    if (out.size_names.size() >= 4) break;  // the session keeps at most 4 sizes per launch
    out.size_names.emplace_back(kSizeNames[k]);
    out.size_params.push_back(at);
  }
  return true;
}

int read_size_args(const std::vector<TritonSizeParam>& size_params, void** params, uint64_t* sizes,
                   int max) {
  if (!params) return 0;
  int n = 0;
  for (const TritonSizeParam& p : size_params) {
    if (n >= max) break;
    const void* arg = params[p.index];
    if (!arg) return 0;
    int64_t v = 0;
    if (p.bytes == 8) {
      std::memcpy(&v, arg, 8);
    } else {
      int32_t v32 = 0;
      std::memcpy(&v32, arg, 4);
      v = v32;
    }
    sizes[n++] = v > 0 ? static_cast<uint64_t>(v) : 0;
  }
  return n;
}

bool read_text_file(const std::string& path, std::string& out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  out.clear();
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return true;
}

std::string triton_cache_entry(const std::string& kernel, const std::string& module_path,
                               const void* image, size_t image_bytes) {
  if (!module_path.empty()) return directory_of(module_path);
  if (image && image_bytes) return find_cache_entry(kernel, image, image_bytes);
  return {};
}

const TritonSignature* find_triton_signature(const std::string& kernel,
                                             const std::string& module_path, const void* image,
                                             size_t image_bytes) {
  static std::mutex mu;
  static auto* by_entry = new std::map<std::string, std::unique_ptr<TritonSignature>>();
  const std::string dir = triton_cache_entry(kernel, module_path, image, image_bytes);
  if (dir.empty()) return nullptr;
  const std::string key = dir + "/" + kernel;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = by_entry->find(key); it != by_entry->end()) return it->second.get();
  std::string text;
  auto sig = std::make_unique<TritonSignature>();
  if (!read_text_file(dir + "/" + kernel + ".ttir", text) ||
      !parse_triton_signature(text, kernel, *sig)) {
    by_entry->emplace(key, nullptr);
    return nullptr;
  }
  return by_entry->emplace(key, std::move(sig)).first->second.get();
}

size_t cubin_extent(const void* image) {
  if (!image) return 0;
  const auto* d = static_cast<const uint8_t*>(image);
  if (std::memcmp(d, ELFMAG, SELFMAG) != 0) return 0;
  Elf64_Ehdr eh;
  std::memcpy(&eh, d, sizeof eh);
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr)) {
    return 0;
  }
  uint64_t bytes = std::max<uint64_t>(eh.e_shoff + uint64_t{eh.e_shnum} * eh.e_shentsize,
                                      eh.e_phoff + uint64_t{eh.e_phnum} * eh.e_phentsize);
  for (uint16_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr s;
    std::memcpy(&s, d + eh.e_shoff + i * sizeof(Elf64_Shdr), sizeof s);
    if (s.sh_type != SHT_NOBITS) bytes = std::max<uint64_t>(bytes, s.sh_offset + s.sh_size);
  }
  return static_cast<size_t>(bytes);
}

}  // namespace seer::client
