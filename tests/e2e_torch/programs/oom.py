"""Allocates one tensor of each byte size given on the command line, freeing it after, and
prints whether the GPU had room (RESULT lines for the test)."""

import sys

import torch

free, total = torch.cuda.mem_get_info()
print(f"RESULT mem_get_info_free {free}")
print(f"RESULT mem_get_info_total {total}")
for i, size in enumerate(int(s) for s in sys.argv[1:]):
    try:
        t = torch.empty(size, dtype=torch.uint8, device="cuda")
        print(f"RESULT alloc_{i} ok")
        del t
    except torch.cuda.OutOfMemoryError as e:
        print(f"RESULT alloc_{i} oom")
        print(f"RESULT message_{i} {str(e).splitlines()[0]}")
    torch.cuda.empty_cache()
    print(f"RESULT reserved_after_{i} {torch.cuda.memory_reserved()}", flush=True)
