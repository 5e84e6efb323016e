#!/usr/bin/env python3
"""Trains ResNet-50 (bottleneck blocks, written out here: no torchvision) with DDP on synthetic
images: SGD with momentum, bf16 autocast, optionally channels_last. Prints the step time and
images/s per GPU. Run it with torchrun:

    torchrun --nproc_per_node 8 train_resnet50_ddp.py --batch-size 128 --steps 10
"""

import argparse
import os
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, in_channels, width, stride):
        super().__init__()
        out_channels = width * self.expansion
        self.conv1 = nn.Conv2d(in_channels, width, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, stride=stride, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, out_channels, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(out_channels)
        self.downsample = None
        if stride != 1 or in_channels != out_channels:
            self.downsample = nn.Sequential(
                nn.Conv2d(in_channels, out_channels, 1, stride=stride, bias=False),
                nn.BatchNorm2d(out_channels),
            )

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = F.relu(self.bn1(self.conv1(x)))
        out = F.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        return F.relu(out + identity)


class ResNet50(nn.Module):
    def __init__(self, num_classes=1000):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False),
            nn.BatchNorm2d(64),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(3, stride=2, padding=1),
        )
        stages = []
        in_channels = 64
        for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
            for i in range(blocks):
                stages.append(Bottleneck(in_channels, width, stride if i == 0 else 1))
                in_channels = width * Bottleneck.expansion
        self.blocks = nn.Sequential(*stages)
        self.fc = nn.Linear(in_channels, num_classes)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--batch-size", type=int, default=64, help="images per GPU")
    p.add_argument("--image-size", type=int, default=224)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--channels-last", action="store_true")
    p.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    args = p.parse_args()

    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    cuda = args.device == "cuda"
    device = torch.device("cuda", local_rank) if cuda else torch.device("cpu")
    if cuda:
        torch.cuda.set_device(device)
    if world > 1:
        dist.init_process_group("nccl" if cuda else "gloo", device_id=device if cuda else None)
    torch.manual_seed(rank)

    memory_format = torch.channels_last if args.channels_last else torch.contiguous_format
    model = ResNet50().to(device, memory_format=memory_format)
    if world > 1:
        model = nn.parallel.DistributedDataParallel(model, device_ids=[local_rank] if cuda else None)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    images = torch.randn(args.batch_size, 3, args.image_size, args.image_size, device=device)
    images = images.contiguous(memory_format=memory_format)
    labels = torch.randint(0, 1000, (args.batch_size,), device=device)

    for step in range(args.steps):
        if cuda:
            torch.cuda.nvtx.range_push(f"step {step}")
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
        t0 = time.perf_counter()
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(args.device, dtype=torch.bfloat16):
            loss = F.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()
        if cuda:
            end.record()
            torch.cuda.synchronize()
            torch.cuda.nvtx.range_pop()
        wall_ms = (time.perf_counter() - t0) * 1e3
        step_ms = start.elapsed_time(end) if cuda else wall_ms
        if rank == 0:
            print(
                f"step {step}: step {step_ms:.2f} ms  (perf_counter {wall_ms:.2f} ms)  "
                f"{args.batch_size / (step_ms / 1e3):,.0f} images/s/GPU",
                flush=True,
            )
    if world > 1:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
