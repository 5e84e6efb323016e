#pragma once

// The part of reading a Triton kernel's IR that needs no protobuf: finding the kernel's entry in
// Triton's cache, which of its parameters are the size arguments (xnumel, ynumel, r0_numel, ...)
// and reading them from a launch's parameters. The client core (triton_ir.cpp, which also derives
// the model of the kernel's accesses) and seer profile's recorder (interposer/profiler, which
// records the sizes of Triton launches on a real GPU) both compile it.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace seer::client {

struct TritonSizeParam {
  int index = 0;  // position in the kernel's parameter list (the launch's kernelParams)
  int bytes = 4;  // i32 or i64
};

// What a kernel's TTIR signature says about its size arguments.
struct TritonSignature {
  std::vector<std::string> size_names;       // in the model's order, at most 4
  std::vector<TritonSizeParam> size_params;  // parallel to size_names
  size_t body = 0;  // offset just past the ')' that ends the parameter list
};

// Parses the signature of `kernel` in the TTIR text. False when it has no such function.
bool parse_triton_signature(std::string_view text, std::string_view kernel, TritonSignature& out);

// The directory of Triton's cache entry for `kernel`, or "" when none is found. `module_path` is
// the file a module was loaded from (empty for an image in memory): its directory is the entry.
// For an image in memory, Triton's cache directories are searched for `<kernel>.cubin` with the
// same `image_bytes` bytes.
std::string triton_cache_entry(const std::string& kernel, const std::string& module_path,
                               const void* image, size_t image_bytes);

// The signature of a Triton kernel (its `.ttir` in the cache entry found as above), or nullptr.
// The result lives for the process.
const TritonSignature* find_triton_signature(const std::string& kernel,
                                             const std::string& module_path, const void* image,
                                             size_t image_bytes);

// The extent of an ELF cubin in memory (its headers and sections), or 0 when `image` is not one.
size_t cubin_extent(const void* image);

// Copies the launch's size arguments into `sizes` (at most `max`); returns how many.
int read_size_args(const std::vector<TritonSizeParam>& size_params, void** params, uint64_t* sizes,
                   int max);

bool read_text_file(const std::string& path, std::string& out);

// Text helpers of the TTIR parsers.
namespace ttir {
std::string_view trim(std::string_view s);
// The top-level entries of a comma-separated list ("%name: type {attrs} loc(...)").
std::vector<std::string_view> split_params(std::string_view s);
// Bytes of a scalar type (i32, bf16, f8E4M3FN, ...); 0 when not one.
int scalar_bytes(std::string_view type);
}  // namespace ttir

}  // namespace seer::client
