// Kernel names, registers, frames, shared memory and globals read from images nvcc built.

#include "kernel_image.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace seer::client {
namespace {

std::vector<char> read(const std::string& name) {
  std::ifstream in(std::string(DRIVER_TEST_IMAGES) + "/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << name;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

constexpr const char* kReverse = "_Z14reverse_scaledPff";
constexpr const char* kSpills = "_Z6spillsPd";

TEST(KernelImage, CubinNamesEveryKernel) {
  const std::vector<char> image = read("kernels.sm90.cubin");
  ImageInfo info;
  ASSERT_TRUE(parse_kernel_image(image.data(), image.size(), 90, info));
  EXPECT_EQ(info.format, ImageInfo::Format::kCubin);
  EXPECT_EQ(info.sm, 90);
  ASSERT_EQ(info.kernels.size(), 3u);
  EXPECT_NE(info.kernel("add_one"), nullptr);
  EXPECT_NE(info.kernel(kReverse), nullptr);
  EXPECT_NE(info.kernel(kSpills), nullptr);
  EXPECT_EQ(info.kernel("missing"), nullptr);
}

TEST(KernelImage, CubinAttributesFromNvInfo) {
  const std::vector<char> image = read("kernels.sm90.cubin");
  ImageInfo info;
  ASSERT_TRUE(parse_kernel_image(image.data(), image.size(), 90, info));
  const KernelInfo* reverse = info.kernel(kReverse);
  const KernelInfo* spills = info.kernel(kSpills);
  const KernelInfo* add = info.kernel("add_one");
  ASSERT_TRUE(reverse && spills && add);
  EXPECT_EQ(reverse->max_threads, 256);  // __launch_bounds__(256)
  EXPECT_EQ(add->max_threads, -1);
  EXPECT_GE(reverse->static_shared, 2048);  // float tile[512]
  EXPECT_EQ(add->static_shared, 0);
  EXPECT_GT(add->registers, 0);
  EXPECT_GT(spills->registers, add->registers);
  EXPECT_GT(spills->local_bytes, 0);  // v[64] indexed at run time lives on the stack
  EXPECT_EQ(add->local_bytes, 0);
}

TEST(KernelImage, CubinGlobalsHaveTheirSizes) {
  const std::vector<char> image = read("kernels.sm90.cubin");
  ImageInfo info;
  ASSERT_TRUE(parse_kernel_image(image.data(), image.size(), 90, info));
  ASSERT_NE(info.global("g_table"), nullptr);
  EXPECT_EQ(info.global("g_table")->size, 1024u);
  ASSERT_NE(info.global("c_values"), nullptr);
  EXPECT_EQ(info.global("c_values")->size, 16u);
}

TEST(KernelImage, CubinWithoutSizeIsBoundedByItsHeaders) {
  const std::vector<char> image = read("kernels.sm90.cubin");
  ImageInfo info;
  ASSERT_TRUE(parse_kernel_image(image.data(), 0, 90, info));
  EXPECT_EQ(info.kernels.size(), 3u);
}

TEST(KernelImage, FatbinPicksTheBestElfForTheTarget) {
  const std::vector<char> image = read("kernels.fatbin");
  ImageInfo for_h100;
  ASSERT_TRUE(parse_kernel_image(image.data(), 0, 90, for_h100));
  EXPECT_EQ(for_h100.format, ImageInfo::Format::kFatbin);
  EXPECT_EQ(for_h100.sm, 90);
  EXPECT_EQ(for_h100.kernels.size(), 3u);
  ImageInfo for_a100;
  ASSERT_TRUE(parse_kernel_image(image.data(), image.size(), 80, for_a100));
  EXPECT_EQ(for_a100.sm, 80);
  EXPECT_NE(for_a100.kernel("add_one"), nullptr);
}

TEST(KernelImage, FatbinBehindTheRegistrationWrapper) {
  const std::vector<char> image = read("kernels.fatbin");
  struct {
    int magic;
    int version;
    const void* data;
    void* unused;
  } wrapper{0x466243B1, 1, image.data(), nullptr};
  ImageInfo info;
  ASSERT_TRUE(parse_kernel_image(&wrapper, 0, 90, info));
  EXPECT_EQ(info.kernels.size(), 3u);
}

// nvcc -Xfatbin -compress-all (zstd, as in PyTorch's wheels): the entry is decompressed.
TEST(KernelImage, CompressedFatbinIsDecompressed) {
  const std::vector<char> image = read("kernels.compressed.fatbin");
  ImageInfo info;
  ASSERT_TRUE(parse_kernel_image(image.data(), image.size(), 90, info));
  EXPECT_FALSE(info.skipped_compressed);
  EXPECT_EQ(info.sm, 90);
  ASSERT_EQ(info.kernels.size(), 3u);
  ASSERT_NE(info.kernel(kReverse), nullptr);
  EXPECT_EQ(info.kernel(kReverse)->max_threads, 256);
  ASSERT_EQ(info.kernel("add_one")->params.size(), 2u);
}

// A corrupt zstd stream leaves the image without kernels, never a crash.
TEST(KernelImage, CorruptCompressedEntryYieldsNoKernels) {
  std::vector<char> image = read("kernels.compressed.fatbin");
  ASSERT_GT(image.size(), 200u);
  for (std::size_t i = 16 + 64 + 8; i < 16 + 64 + 40; ++i) image[i] = static_cast<char>(0x5a);
  ImageInfo info;
  parse_kernel_image(image.data(), image.size(), 90, info);
  EXPECT_TRUE(info.kernels.empty());
}

// Parameter layouts (EIATTR_KPARAM_INFO): add_one(float*, int), reverse_scaled(float*, float),
// spills(double*).
TEST(KernelImage, CubinParameterLayouts) {
  const std::vector<char> image = read("kernels.sm90.cubin");
  ImageInfo info;
  ASSERT_TRUE(parse_kernel_image(image.data(), image.size(), 90, info));
  const KernelInfo* add = info.kernel("add_one");
  ASSERT_NE(add, nullptr);
  ASSERT_EQ(add->params.size(), 2u);
  EXPECT_EQ(add->params[0].offset, 0u);
  EXPECT_EQ(add->params[0].size, 8u);
  EXPECT_EQ(add->params[1].offset, 8u);
  EXPECT_EQ(add->params[1].size, 4u);
  ASSERT_EQ(info.kernel(kReverse)->params.size(), 2u);
  EXPECT_EQ(info.kernel(kReverse)->params[1].size, 4u);
  ASSERT_EQ(info.kernel(kSpills)->params.size(), 1u);
  EXPECT_EQ(info.kernel(kSpills)->params[0].size, 8u);
}

TEST(KernelImage, PtxEntries) {
  std::vector<char> image = read("kernels.ptx");
  image.push_back('\0');
  ImageInfo info;
  ASSERT_TRUE(parse_kernel_image(image.data(), 0, 90, info));
  EXPECT_EQ(info.format, ImageInfo::Format::kPtx);
  EXPECT_EQ(info.kernels.size(), 3u);
  EXPECT_NE(info.kernel(kReverse), nullptr);
  EXPECT_EQ(info.kernel("add_one")->registers, -1);
}

TEST(KernelImage, GarbageIsRejected) {
  const char junk[] = "\x01\x02\x03 not an image";
  ImageInfo info;
  EXPECT_FALSE(parse_kernel_image(junk, sizeof junk, 90, info));
  EXPECT_FALSE(parse_kernel_image(nullptr, 0, 90, info));
}

}  // namespace
}  // namespace seer::client
