# torch.profiler with CUDA activities around a few matmuls, an elementwise op and a copy; prints
# what key_averages() reports as RESULT lines and exports the Chrome trace to argv[1].
import sys

import torch
from torch.profiler import ProfilerActivity, profile

a = torch.randn(1024, 1024, device="cuda")
b = torch.randn(1024, 1024, device="cuda")
torch.cuda.synchronize()
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    for _ in range(3):
        c = a @ b
    d = c + 1.0
    host = d.cpu()
    torch.cuda.synchronize()


def device_total(e):
    for name in ("device_time_total", "cuda_time_total"):
        if hasattr(e, name):
            return getattr(e, name)
    return 0.0


for e in prof.key_averages():
    if "Gemm" in e.key or "gemm" in e.key:
        print(f"RESULT gemm_name {e.key}")
        print(f"RESULT gemm_count {e.count}")
        print(f"RESULT gemm_device_us {device_total(e):.3f}")
    if e.key == "aten::mm":
        print(f"RESULT mm_device_us {device_total(e):.3f}")
prof.export_chrome_trace(sys.argv[1])
print("RESULT exported 1")
