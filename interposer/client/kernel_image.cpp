// Reads kernel names, register counts and global sizes from cubins, fat binaries and PTX.
// Layouts (checked against nvcc 13.0 output): ELF64 cubin with one .text.<kernel> section and
// a FUNC symbol per kernel (st_other 0x10 marks entries); per-kernel facts are EIATTR records in
// .nv.info (REGCOUNT 0x2f, FRAME_SIZE 0x11 keyed by symbol index) and .nv.info.<kernel>
// (MAX_THREADS 0x05, PARAM_CBANK 0x0a, KPARAM_INFO 0x17: u32 index, u16 ordinal, u16 offset,
// u32 whose bits 18-31 are the size); __shared__ bytes are the size of .nv.shared.<kernel>.
// Fat binary entries compressed with zstd (flag 0x8000; nvcc -compress-mode=size, PyTorch's
// wheels) are decompressed; other compressed entries (flag 0x2000) are skipped.

#include "kernel_image.h"

#include <elf.h>
#include <zstd.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <map>
#include <memory>
#include <utility>

namespace seer::client {
namespace {

constexpr uint32_t kFatbinMagic = 0xBA55ED50u;
constexpr uint32_t kFatbinWrapperMagic = 0x466243B1u;
constexpr uint8_t kStoCudaEntry = 0x10;
constexpr uint8_t kEiattrFrameSize = 0x11;
constexpr uint8_t kEiattrRegCount = 0x2f;
constexpr uint8_t kEiattrMaxThreads = 0x05;
constexpr uint8_t kEiattrParamCbank = 0x0a;
constexpr uint8_t kEiattrKparamInfo = 0x17;
constexpr uint64_t kFatbinZstd = 0x8000;
constexpr uint64_t kFatbinCompressed = 0x2000;
// A decompressed entry larger than this is not parsed (PyTorch 2.15's largest is 43 MB).
constexpr uint64_t kMaxDecompressedBytes = uint64_t{512} << 20;

template <typename T>
bool read_at(const uint8_t* base, size_t size, uint64_t offset, T& out) {
  if (offset > size || size - offset < sizeof(T)) return false;
  std::memcpy(&out, base + offset, sizeof(T));
  return true;
}

// Walks an EIATTR list: calls f(attr, payload, payload_size) for each record.
template <typename F>
void for_each_eiattr(const uint8_t* p, size_t n, F f) {
  size_t i = 0;
  while (i + 2 <= n) {
    const uint8_t format = p[i], attr = p[i + 1];
    i += 2;
    switch (format) {
      case 0x01:  // EIFMT_NVAL: no value
        f(attr, p + i, 0);
        break;
      case 0x02:  // EIFMT_BVAL: one byte (padded to two)
      case 0x03:  // EIFMT_HVAL: two bytes
        if (i + 2 > n) return;
        f(attr, p + i, 2);
        i += 2;
        break;
      case 0x04: {  // EIFMT_SVAL: u16 size, then the bytes
        if (i + 2 > n) return;
        uint16_t len = 0;
        std::memcpy(&len, p + i, 2);
        i += 2;
        if (i + len > n) return;
        f(attr, p + i, len);
        i += len;
        break;
      }
      default:
        return;
    }
  }
}

uint32_t u32_at(const uint8_t* p) {
  uint32_t v = 0;
  std::memcpy(&v, p, 4);
  return v;
}

bool parse_cubin(const uint8_t* d, size_t size, ImageInfo& out) {
  Elf64_Ehdr eh;
  if (!read_at(d, size, 0, eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr)) {
    return false;
  }
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  for (size_t i = 0; i < sections.size(); ++i) {
    if (!read_at(d, size, eh.e_shoff + i * sizeof(Elf64_Shdr), sections[i])) return false;
  }
  auto string_at = [&](const Elf64_Shdr& table, uint32_t offset) -> std::string {
    if (table.sh_offset > size || offset >= table.sh_size || offset >= size - table.sh_offset) {
      return {};
    }
    const char* s = reinterpret_cast<const char*>(d + table.sh_offset + offset);
    const size_t limit =
        std::min<uint64_t>(table.sh_size - offset, size - table.sh_offset - offset);
    return std::string(s, strnlen(s, limit));
  };
  if (eh.e_shstrndx >= sections.size()) return false;
  const Elf64_Shdr& names = sections[eh.e_shstrndx];
  auto section_name = [&](const Elf64_Shdr& s) { return string_at(names, s.sh_name); };

  out.format = ImageInfo::Format::kCubin;
  out.bytes = std::max<uint64_t>(eh.e_shoff + uint64_t{eh.e_shnum} * eh.e_shentsize,
                                 eh.e_phoff + uint64_t{eh.e_phnum} * eh.e_phentsize);
  for (const Elf64_Shdr& s : sections) {
    if (s.sh_type != SHT_NOBITS) out.bytes = std::max<uint64_t>(out.bytes, s.sh_offset + s.sh_size);
  }
  out.sm = static_cast<int>(eh.e_flags >> 8 & 0xff);  // EF_CUDA_SM field of older cubins
  if (out.sm == 0) out.sm = static_cast<int>(eh.e_flags >> 16 & 0xff);

  std::map<uint32_t, size_t> kernel_of_symbol;  // symbol index -> kernels index
  std::map<std::string, size_t> kernel_of_name;
  std::map<std::string, uint64_t> shared_of;
  for (const Elf64_Shdr& s : sections) {
    const std::string n = section_name(s);
    if (n.rfind(".nv.shared.", 0) == 0) shared_of[n.substr(11)] = s.sh_size;
  }
  for (const Elf64_Shdr& s : sections) {
    if (s.sh_type != SHT_SYMTAB || s.sh_entsize != sizeof(Elf64_Sym) ||
        s.sh_link >= sections.size())
      continue;
    const Elf64_Shdr& strings = sections[s.sh_link];
    const uint64_t count = s.sh_size / sizeof(Elf64_Sym);
    bool any_entry = false;
    for (uint64_t i = 0; i < count; ++i) {
      Elf64_Sym sym;
      if (!read_at(d, size, s.sh_offset + i * sizeof(Elf64_Sym), sym)) break;
      if (ELF64_ST_TYPE(sym.st_info) == STT_FUNC && (sym.st_other & kStoCudaEntry))
        any_entry = true;
    }
    for (uint64_t i = 0; i < count; ++i) {
      Elf64_Sym sym;
      if (!read_at(d, size, s.sh_offset + i * sizeof(Elf64_Sym), sym)) break;
      const int type = ELF64_ST_TYPE(sym.st_info);
      const std::string name = string_at(strings, sym.st_name);
      if (name.empty()) continue;
      // Entries are marked (kernels in an anonymous namespace are local symbols but entries);
      // in images without marks, global functions stand for the kernels.
      const bool kernel =
          any_entry ? (sym.st_other & kStoCudaEntry) != 0 : ELF64_ST_BIND(sym.st_info) != STB_LOCAL;
      if (type == STT_FUNC && kernel) {
        KernelInfo k;
        k.name = name;
        auto sh = shared_of.find(name);
        k.static_shared = sh != shared_of.end() ? static_cast<int>(sh->second) : 0;
        k.local_bytes = 0;
        kernel_of_symbol[static_cast<uint32_t>(i)] = out.kernels.size();
        kernel_of_name[name] = out.kernels.size();
        out.kernels.push_back(std::move(k));
      } else if (type == STT_OBJECT && sym.st_shndx != SHN_UNDEF &&
                 sym.st_shndx < sections.size()) {
        const std::string where = section_name(sections[sym.st_shndx]);
        if (where.rfind(".nv.global", 0) == 0 || where.rfind(".nv.constant", 0) == 0) {
          out.globals.push_back(GlobalInfo{name, sym.st_size});
        }
      }
    }
  }
  for (const Elf64_Shdr& s : sections) {
    const std::string n = section_name(s);
    if (n.rfind(".nv.info", 0) != 0 || s.sh_offset > size || s.sh_size > size - s.sh_offset)
      continue;
    const uint8_t* p = d + s.sh_offset;
    if (n == ".nv.info") {
      for_each_eiattr(p, s.sh_size, [&](uint8_t attr, const uint8_t* v, size_t len) {
        if (len != 8 || (attr != kEiattrRegCount && attr != kEiattrFrameSize)) return;
        auto k = kernel_of_symbol.find(u32_at(v));
        if (k == kernel_of_symbol.end()) return;
        const int value = static_cast<int>(u32_at(v + 4));
        if (attr == kEiattrRegCount) out.kernels[k->second].registers = value;
        if (attr == kEiattrFrameSize) out.kernels[k->second].local_bytes = value;
      });
    } else if (n.size() > 9 && n[8] == '.') {
      auto k = kernel_of_name.find(n.substr(9));
      if (k == kernel_of_name.end()) continue;
      KernelInfo& info = out.kernels[k->second];
      for_each_eiattr(p, s.sh_size, [&](uint8_t attr, const uint8_t* v, size_t len) {
        if (attr == kEiattrMaxThreads && len == 12) {
          info.max_threads = static_cast<int>(u32_at(v) * u32_at(v + 4) * u32_at(v + 8));
        } else if (attr == kEiattrParamCbank && len == 8) {
          info.const_param_bytes = static_cast<int>(u32_at(v + 4) >> 16);
        } else if (attr == kEiattrKparamInfo && len == 12) {
          uint16_t ordinal = 0, offset = 0;
          std::memcpy(&ordinal, v + 4, 2);
          std::memcpy(&offset, v + 6, 2);
          if (ordinal >= info.params.size()) info.params.resize(ordinal + 1u);
          info.params[ordinal] = ParamInfo{offset, u32_at(v + 8) >> 18};
        }
      });
    }
  }
  return true;
}

bool is_ident(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '$' || c == '.';
}

bool parse_ptx(const char* text, size_t size, ImageInfo& out) {
  const std::string_view s(text, size);
  if (s.find(".version") == std::string_view::npos && s.find(".entry") == std::string_view::npos) {
    return false;
  }
  out.format = ImageInfo::Format::kPtx;
  for (size_t at = s.find(".entry"); at != std::string_view::npos; at = s.find(".entry", at + 6)) {
    size_t i = at + 6;
    if (i < s.size() && is_ident(s[i])) continue;  // e.g. ".entry_point" is not the directive
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
    size_t j = i;
    while (j < s.size() && is_ident(s[j])) ++j;
    if (j > i) {
      KernelInfo k;
      k.name = std::string(s.substr(i, j - i));
      out.kernels.push_back(std::move(k));
    }
  }
  return true;
}

// The bytes of a fat binary: its header, then entries {u16 kind (1 PTX, 2 ELF), u16 version,
// u32 header size, u64 payload size, u32 compressed size, ..., u32 sm at 28, u64 flags at 40,
// u64 uncompressed size at 56}.
struct FatbinEntry {
  uint16_t kind;
  uint16_t version;
  uint32_t header_size;
  uint64_t payload_size;
  uint32_t compressed_size;
  uint32_t unknown;
  uint16_t minor;
  uint16_t major;
  uint32_t sm;
  uint32_t name_offset;
  uint32_t name_size;
  uint64_t flags;
  uint64_t reserved;
  uint64_t uncompressed_size;
};

// An entry's bytes, decompressed into `storage` when zstd-compressed. Empty when they cannot be
// had (another compression, a corrupt stream, a size past the limit or not the frame's own).
std::pair<const uint8_t*, size_t> entry_bytes(const uint8_t* payload, const FatbinEntry& e,
                                              std::unique_ptr<uint8_t[]>& storage) {
  const bool compressed = (e.flags & (kFatbinZstd | kFatbinCompressed)) != 0;
  if (!compressed) return {payload, e.payload_size};
  if (!(e.flags & kFatbinZstd) || e.uncompressed_size == 0 ||
      e.uncompressed_size > kMaxDecompressedBytes) {
    return {nullptr, 0};
  }
  const uint64_t in = e.compressed_size != 0 && e.compressed_size <= e.payload_size
                          ? e.compressed_size
                          : e.payload_size;
  const unsigned long long declared = ZSTD_getFrameContentSize(payload, in);
  if (declared == ZSTD_CONTENTSIZE_ERROR ||
      (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != e.uncompressed_size)) {
    return {nullptr, 0};
  }
  storage.reset(new uint8_t[e.uncompressed_size]);
  const size_t n = ZSTD_decompress(storage.get(), e.uncompressed_size, payload, in);
  if (ZSTD_isError(n)) return {nullptr, 0};
  return {storage.get(), n};
}

bool parse_fatbin(const uint8_t* d, size_t size, int target_sm, ImageInfo& out) {
  struct Header {
    uint32_t magic;
    uint16_t version;
    uint16_t header_size;
    uint64_t fat_size;
  } h;
  if (!read_at(d, size ? size : sizeof h, 0, h) || h.magic != kFatbinMagic) return false;
  const uint64_t total = h.header_size + h.fat_size;
  if (size == 0) size = total;
  size = std::min<uint64_t>(size, total);
  auto readable = [](const FatbinEntry& e) {
    return !(e.flags & kFatbinCompressed) || (e.flags & kFatbinZstd);
  };
  uint64_t best = 0, ptx = 0;  // entry offsets; 0: none
  FatbinEntry best_entry{}, ptx_entry{};
  int best_sm = -1;
  for (uint64_t off = h.header_size; off < size;) {
    FatbinEntry e;
    if (!read_at(d, size, off, e) || e.header_size < offsetof(FatbinEntry, reserved)) break;
    if (e.header_size < sizeof(FatbinEntry)) e.uncompressed_size = 0;
    const uint64_t payload = off + e.header_size;
    if (payload > size || e.payload_size > size - payload) break;
    if (!readable(e)) {
      out.skipped_compressed = true;
    } else if (e.kind == 2) {
      const int sm = static_cast<int>(e.sm);
      const bool fits = target_sm <= 0 || sm <= target_sm;
      if (fits && sm > best_sm) {
        best = payload;
        best_entry = e;
        best_sm = sm;
      }
    } else if (e.kind == 1 && !ptx) {
      ptx = payload;
      ptx_entry = e;
    }
    off = payload + e.payload_size;
  }
  bool ok = false;
  std::unique_ptr<uint8_t[]> storage;
  if (best) {
    const auto [bytes, n] = entry_bytes(d + best, best_entry, storage);
    ok = bytes && parse_cubin(bytes, n, out);
    if (ok) out.sm = best_sm;
  } else if (ptx) {
    const auto [bytes, n] = entry_bytes(d + ptx, ptx_entry, storage);
    ok = bytes && parse_ptx(reinterpret_cast<const char*>(bytes),
                            strnlen(reinterpret_cast<const char*>(bytes), n), out);
  }
  out.format = ImageInfo::Format::kFatbin;
  return ok || out.skipped_compressed;
}

}  // namespace

const KernelInfo* ImageInfo::kernel(const std::string& name) const {
  for (const KernelInfo& k : kernels) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

const GlobalInfo* ImageInfo::global(const std::string& name) const {
  for (const GlobalInfo& g : globals) {
    if (g.name == name) return &g;
  }
  return nullptr;
}

bool parse_kernel_image(const void* data, size_t size, int target_sm, ImageInfo& out) {
  out = ImageInfo{};
  if (!data) return false;
  const auto* d = static_cast<const uint8_t*>(data);
  if (size != 0 && size < 4) return false;
  uint32_t magic = 0;
  std::memcpy(&magic, d, 4);
  if (magic == kFatbinWrapperMagic) {  // {magic, version, const void* fatbin, filename}
    const void* inner = nullptr;
    std::memcpy(&inner, d + 8, sizeof inner);
    return parse_kernel_image(inner, 0, target_sm, out);
  }
  if (magic == kFatbinMagic) return parse_fatbin(d, size, target_sm, out);
  if (std::memcmp(d, ELFMAG, SELFMAG) == 0) {
    if (size == 0) {  // the section headers end the file in nvcc's layout
      Elf64_Ehdr eh;
      std::memcpy(&eh, d, sizeof eh);
      size = eh.e_shoff + static_cast<uint64_t>(eh.e_shnum) * eh.e_shentsize;
    }
    return parse_cubin(d, size, out);
  }
  const char* text = static_cast<const char*>(data);
  return parse_ptx(text, size ? strnlen(text, size) : std::strlen(text), out);
}

}  // namespace seer::client
