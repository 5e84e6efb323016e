"""x + y on N float32 elements, warmed up, then once more: the kernel seer profile measures."""
import sys

import torch

n = int(sys.argv[1])
x = torch.ones(n, device="cuda")
y = torch.ones(n, device="cuda")
for _ in range(4):
    z = x + y
torch.cuda.synchronize()
print(f"elements {n}")
