// The kernel names NCCL operations get in CUPTI records: NCCL's specialized kernels
// (src/device/generate.py), mangled so that the profiler's demangler gives NCCL's spelling.

#include "nccl_kernel.h"

#include <cxxabi.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "wire.pb.h"

namespace seer::cupti {
namespace {

constexpr int kInt32 = 2, kFloat32 = 7, kBfloat16 = 9;

std::string demangled(int coll, int datatype, const std::string& algo) {
  const std::string mangled = nccl_kernel_name(coll, datatype, algo);
  int status = 0;
  char* d = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  EXPECT_EQ(status, 0) << mangled;
  std::string out = d ? d : "";
  std::free(d);
  return out;
}

TEST(NcclKernelName, ReductionsBySumTypeAndTreeOrRing) {
  EXPECT_EQ(nccl_kernel_name(wire::COLL_ALL_REDUCE, kFloat32, "RING"),
            "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE");
  EXPECT_EQ(demangled(wire::COLL_ALL_REDUCE, kBfloat16, "NVLS"),
            "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
  EXPECT_EQ(demangled(wire::COLL_ALL_REDUCE, kFloat32, "TREE"),
            "ncclDevKernel_AllReduce_Sum_f32_TREE_LL(ncclDevKernelArgsStorage<4096ul>)");
  EXPECT_EQ(demangled(wire::COLL_REDUCE_SCATTER, kInt32, ""),
            "ncclDevKernel_ReduceScatter_Sum_u32_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
  EXPECT_EQ(demangled(wire::COLL_REDUCE, kBfloat16, "PAT"),
            "ncclDevKernel_Reduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
}

TEST(NcclKernelName, CopiesAndPointToPoint) {
  EXPECT_EQ(demangled(wire::COLL_ALL_GATHER, kBfloat16, "NVLS"),
            "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
  EXPECT_EQ(demangled(wire::COLL_BROADCAST, kFloat32, "RING"),
            "ncclDevKernel_Broadcast_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
  for (int k : {wire::COLL_SEND, wire::COLL_RECV, wire::COLL_ALL_TO_ALL, wire::COLL_GATHER}) {
    EXPECT_EQ(demangled(k, kFloat32, ""),
              "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)");
  }
  EXPECT_EQ(demangled(wire::COLL_ALL_REDUCE, 99, "RING"),
            "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)");
}

TEST(NcclKernelThreads, ByProtocol) {
  EXPECT_EQ(nccl_kernel_threads("LL128"), 640);
  EXPECT_EQ(nccl_kernel_threads("LL"), 512);
  EXPECT_EQ(nccl_kernel_threads(""), 512);
}

}  // namespace
}  // namespace seer::cupti
