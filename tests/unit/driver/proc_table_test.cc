// cuGetProcAddress name resolution against the real export list of CUDA 13's libcuda.

#include "proc_table.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>

namespace seer::driver {
namespace {

const std::set<std::string>& exports() {
  static const std::set<std::string> names = [] {
    std::set<std::string> out;
    std::ifstream in(DRIVER_SYMBOLS);
    for (std::string line; std::getline(in, line);) {
      if (!line.empty() && line[0] != '#') out.insert(line);
    }
    return out;
  }();
  return names;
}

ProcLookup lookup(const char* name, int version, bool per_thread = false) {
  return resolve_proc(name, version, per_thread,
                      [](const std::string& s) { return exports().count(s) > 0; });
}

TEST(ProcTable, SymbolListIsComplete) { EXPECT_GT(exports().size(), 600u); }

TEST(ProcTable, BaseNamesMapToTheAbiOfTheVersion) {
  EXPECT_EQ(lookup("cuMemAlloc", 12000).symbol, "cuMemAlloc_v2");
  EXPECT_EQ(lookup("cuMemAlloc", 2000).symbol, "cuMemAlloc");
  EXPECT_EQ(lookup("cuCtxCreate", 11000).symbol, "cuCtxCreate_v2");
  EXPECT_EQ(lookup("cuCtxCreate", 12000).symbol, "cuCtxCreate_v3");
  EXPECT_EQ(lookup("cuCtxCreate", 13000).symbol, "cuCtxCreate_v4");
  EXPECT_EQ(lookup("cuStreamGetCaptureInfo", 12030).symbol, "cuStreamGetCaptureInfo_v3");
  EXPECT_EQ(lookup("cuStreamGetCaptureInfo", 11030).symbol, "cuStreamGetCaptureInfo_v2");
  EXPECT_EQ(lookup("cuGetProcAddress", 11030).symbol, "cuGetProcAddress");
  EXPECT_EQ(lookup("cuGetProcAddress", 12000).symbol, "cuGetProcAddress_v2");
  EXPECT_EQ(lookup("cuDevicePrimaryCtxRelease", 12000).symbol, "cuDevicePrimaryCtxRelease_v2");
  EXPECT_EQ(lookup("cuMemGetAddressRange", 12000).symbol, "cuMemGetAddressRange_v2");
  EXPECT_EQ(lookup("cuStreamWriteValue32", 12000).symbol, "cuStreamWriteValue32_v2");
  EXPECT_EQ(lookup("cuDevicePrimaryCtxGetState", 12000).symbol, "cuDevicePrimaryCtxGetState");
  EXPECT_EQ(lookup("cuMemCreate", 12000).status, ProcStatus::kFound);
}

TEST(ProcTable, PerThreadDefaultStreamForms) {
  EXPECT_EQ(lookup("cuLaunchKernel", 12000, true).symbol, "cuLaunchKernel_ptsz");
  EXPECT_EQ(lookup("cuLaunchKernel", 12000, false).symbol, "cuLaunchKernel");
  EXPECT_EQ(lookup("cuMemcpyHtoD", 12000, true).symbol, "cuMemcpyHtoD_v2_ptds");
  EXPECT_EQ(lookup("cuMemcpyHtoDAsync", 12000, true).symbol, "cuMemcpyHtoDAsync_v2_ptsz");
  // Functions without a stream have no such form: the plain one is given.
  EXPECT_EQ(lookup("cuDeviceGet", 12000, true).symbol, "cuDeviceGet");
}

TEST(ProcTable, TooOldAVersionIsNotSufficient) {
  EXPECT_EQ(lookup("cuLogsRegisterCallback", 12000).status, ProcStatus::kVersionNotSufficient);
  EXPECT_EQ(lookup("cuLogsRegisterCallback", 12090).symbol, "cuLogsRegisterCallback");
}

TEST(ProcTable, UnknownNamesAreNotFound) {
  EXPECT_EQ(lookup("cuNoSuchFunction", 13000).status, ProcStatus::kSymbolNotFound);
  EXPECT_EQ(lookup("", 0).status, ProcStatus::kSymbolNotFound);
  EXPECT_EQ(lookup("cudaMalloc", 13000).status, ProcStatus::kSymbolNotFound);
}

TEST(ProcTable, ExportedNamesWithoutTypedefResolveToThemselves) {
  EXPECT_EQ(lookup("cuMemAlloc_v2", 13000).symbol, "cuMemAlloc_v2");
  EXPECT_EQ(lookup("cuGetExportTable", 13000).status, ProcStatus::kFound);
}

}  // namespace
}  // namespace seer::driver
