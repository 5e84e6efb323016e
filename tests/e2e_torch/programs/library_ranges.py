"""Sorts on the GPU four times and marks no steps: CUB marks each device-wide sort with an NVTX
range in its own domain (CCCL), which must not be taken for the program's steps
(tests/e2e_torch/models_test.cpp)."""

import torch

x = torch.randn(1 << 20, device="cuda")
for _ in range(4):
    torch.sort(x)
torch.cuda.synchronize()
print("RESULT sorts 4")
