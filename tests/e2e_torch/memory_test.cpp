// torch.cuda.OutOfMemoryError exactly where the target GPU runs out: its memory less the CUDA
// context's reserve (GPU catalog, simcore), with the caching allocator's 2 MiB rounding.

#include "seer/simcore/gpu_spec.h"
#include "torch_util.h"

namespace seer::e2e::torch {
namespace {

using MemoryTest = TorchTest;

TEST_F(MemoryTest, OutOfMemoryAtTheTargetsCapacity) {
  const auto h100 = sim::find_gpu("H100-SXM-80GB");
  ASSERT_TRUE(h100.has_value());
  const long long capacity = h100->memory_bytes - h100->context_reserve_bytes;
  ASSERT_EQ(capacity % (2 << 20), 0);  // a whole number of the allocator's 2 MiB rounding
  const Outcome o = seer_torch(
      "dgx-h100", "",
      python_command(program("oom.py"), {std::to_string(capacity), std::to_string(capacity + 1),
                                         std::to_string(capacity - (2 << 20)), "1"}));
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  EXPECT_EQ(o.integer("mem_get_info_total"), h100->memory_bytes);
  EXPECT_EQ(o.integer("mem_get_info_free"), capacity);
  EXPECT_EQ(o.text("alloc_0"), "ok");   // all of it
  EXPECT_EQ(o.text("alloc_1"), "oom");  // one byte more: 2 MiB more after rounding
  EXPECT_NE(o.text("message_1").find("CUDA out of memory"), std::string::npos);
  EXPECT_EQ(o.text("alloc_2"), "ok");
  EXPECT_EQ(o.text("alloc_3"), "ok");
  EXPECT_EQ(o.integer("reserved_after_1"), 0);
}

}  // namespace
}  // namespace seer::e2e::torch
