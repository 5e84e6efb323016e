#!/usr/bin/env python3
"""Host cost of PyTorch ranks under `seer run`: memory per rank process (RSS and PSS, sampled from
/proc while the run goes on; the figure after the first step is the one that matters), wall and
CPU seconds per simulated training step, and the session's records per second (run.json).

    tests/bench/torch/torch_ranks_bench.py --ranks 8 --layers 2
    tests/bench/torch/torch_ranks_bench.py --ranks 64 --nodes 8 --layers 32   # the 8B model

Prints one summary line per run; a performance figure, not a test.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def rank_pids(root_pid):
    """Processes under root_pid whose environment names a torchrun worker (RANK=...)."""
    children, ranks = {}, []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    stack = [root_pid]
    while stack:
        pid = stack.pop()
        for child in children.get(pid, []):
            stack.append(child)
            try:
                with open(f"/proc/{child}/environ", "rb") as f:
                    if b"\0LOCAL_RANK=" in b"\0" + f.read():
                        ranks.append(child)
            except OSError:
                pass
    return ranks


def memory_kib(pid):
    values = {}
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                m = re.match(r"(Rss|Pss):\s+(\d+) kB", line)
                if m:
                    values[m.group(1)] = int(m.group(2))
    except OSError:
        pass
    return values.get("Rss", 0), values.get("Pss", 0)


def cpu_seconds(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seer", default=os.path.join(ROOT, "build", "bin", "seer"))
    p.add_argument("--python", default=os.path.join(ROOT, ".venv", "bin", "python"))
    p.add_argument("--ranks", type=int, default=8)
    p.add_argument("--nodes", type=int, help="DGX H100 nodes (default: ranks / 8)")
    p.add_argument("--model", default="llama3-8b")
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--seq-len", type=int, default=2048)
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--parallel", default="--fsdp", help="train_llama.py parallelism flags")
    args = p.parse_args()

    nodes = args.nodes or max(1, args.ranks // 8)
    out = tempfile.mkdtemp(prefix="seer-bench-torch-")
    command = [
        args.seer, "run", "--quiet", "--host-time", "modeled", "--cluster", f"dgx-h100:{nodes}",
        "--out", out, "--", args.python, "-m", "torch.distributed.run", "--standalone",
        "--nproc_per_node", str(args.ranks), os.path.join(ROOT, "examples/pytorch/train_llama.py"),
        "--model", args.model, "--layers", str(args.layers), "--seq-len", str(args.seq_len),
        "--steps", str(args.steps), *args.parallel.split(),
    ]
    start = time.monotonic()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    samples = []  # (time, [(rss, pss) per rank], cpu seconds of all ranks)
    step_lines = []  # (wall time, line) of rank 0's step lines
    done = threading.Event()

    def sample():
        while not done.is_set():
            pids = rank_pids(proc.pid)
            samples.append((time.monotonic(), [memory_kib(pid) for pid in pids],
                            sum(cpu_seconds(pid) for pid in pids)))
            done.wait(0.5)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    tail = []
    for line in proc.stdout:
        tail = (tail + [line])[-40:]
        if re.match(r"rank 0 step \d+:", line):
            step_lines.append((time.monotonic(), line.strip()))
            print(f"  [{time.monotonic() - start:7.1f} s] {line.strip()}", flush=True)
    rc = proc.wait()
    done.set()
    sampler.join()
    wall = time.monotonic() - start
    if rc != 0:
        sys.stdout.write("".join(tail))
        sys.exit(f"seer run exited with {rc}")

    first_step = step_lines[0][0] if step_lines else wall
    after_first = [s for s in samples if s[0] >= first_step and s[1]] or [s for s in samples if s[1]]
    peak_rss = max(max(r for r, _ in s[1]) for s in after_first) / 2**20
    peak_pss = max(max(q for _, q in s[1]) for s in after_first) / 2**20
    total_pss = max(sum(q for _, q in s[1]) for s in after_first) / 2**20
    steady = [t for t, _ in step_lines[1:]]
    wall_per_step = (steady[-1] - steady[0]) / (len(steady) - 1) if len(steady) > 1 else float("nan")
    run = json.load(open(os.path.join(out, "run.json")))
    print(
        f"{args.ranks} ranks, {args.model} {args.layers} layers, {args.parallel}: "
        f"per rank RSS {peak_rss:.2f} GiB, PSS {peak_pss:.2f} GiB (all ranks PSS {total_pss:.1f} GiB); "
        f"wall {wall_per_step:.1f} s per step after the first "
        f"({wall_per_step / args.ranks:.2f} s per step per rank); total wall {wall:.0f} s, "
        f"{run['records_per_second']:.0f} records/s ({run['records']} records)"
    )


if __name__ == "__main__":
    main()
