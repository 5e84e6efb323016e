# A few cuDNN calls for `seer profile`'s end-to-end test (tests/e2e_db/cudnn_profile_test.cpp):
# causal scaled dot-product attention on the cuDNN backend and a 3x3 convolution, forward only,
# three times each, each repetition timed with CUDA events ("sdpa ms", "conv ms").
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

torch.backends.cudnn.enabled = True
dev = "cuda"
q = torch.empty(2, 8, 512, 64, device=dev, dtype=torch.bfloat16)
k = torch.empty_like(q)
v = torch.empty_like(q)
x = torch.empty(8, 64, 56, 56, device=dev, dtype=torch.bfloat16)
w = torch.empty(128, 64, 3, 3, device=dev, dtype=torch.bfloat16)


def timed(name, fn):
    for _ in range(3):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        print(f"{name} ms {start.elapsed_time(end):.6f}")


with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
    timed("sdpa", lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True))
timed("conv", lambda: F.conv2d(x, w, padding=1))
