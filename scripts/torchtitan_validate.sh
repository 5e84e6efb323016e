#!/usr/bin/env bash
# Validation against TorchTitan's published figure (shared/reference/ground-truth.md, "End-to-end
# PyTorch training"): Llama 3.1 8B, FSDP over 8 GPUs, local batch 2, sequence 8192, selective
# activation checkpointing "op", bf16, AdamW, eager; 5,762 tokens/s/GPU on Grand Teton H100s
# (96 GB HBM2e, 500 W).
#
# Installs the pinned TorchTitan release and the packages it needs that .venv lacks into a
# directory beside the project (never inside the repository), fetches TorchTitan's test tokenizer,
# c4_test data set and Llama 3 8B training config at the release's tag, runs TorchTitan unmodified
# under `seer run --cluster grand-teton:1` with torchrun and 8 ranks, and prints tokens/s/GPU per
# step (TorchTitan's own figure, from time.perf_counter, i.e. Seer's virtual time), their mean
# after the warm-up step and the error against 5,762, then Seer's time sources and top kernels.
#
#   scripts/torchtitan_validate.sh [extra TorchTitan options, e.g. --training.steps 20]
#
# Environment:
#   SEER_TORCHTITAN_DIR     where TorchTitan, its packages, the assets and the outputs go
#                           (default: ../torchtitan-env beside the repository)
#   SEER_TORCHTITAN_STEPS   training steps (default 15; the first is warm-up and left out)
#   SEER_TORCHTITAN_ASSETS  a directory already holding tokenizer/tokenizer.json,
#                           tokenizer/tokenizer_config.json, c4_test/data.json and llama3_8b.toml
#                           (for machines that cannot reach GitHub)
#   SEER_TORCHTITAN_TIMEOUT seconds after which the run is stopped (default 1800; it takes about
#                           a minute on 2 cores)
#   SEER_SKIP_BUILD=1       do not run scripts/build.sh and scripts/setup-python.sh
#   SEER_BUILD_DIR, SEER_VENV  as for scripts/demo.sh
#
# Why TorchTitan 0.2.2 and not 0.3.0: 0.3.0 no longer lets language models use SDPA
# (models/common/config_utils.py: "sdpa is no longer supported for language models"; flex,
# flex_flash or varlen only, with per-document block-causal masks) and captures forward+backward
# in a CUDA graph by default; the published run used SDPA with a plain causal mask, eagerly.
# 0.2.2's llama3_8b.toml is that configuration (SDPA causal, selective AC "op", bf16 FSDP
# mixed precision, AdamW, vocabulary 128,256); only what the published run set differently is
# overridden (local batch 2 instead of 1), plus the test tokenizer and data set, the step count and
# log_freq 1 (a figure per step). The model keeps its vocabulary of 128,256 (the flavor's
# vocab_size; TorchTitan 0.2.2 does not take it from the tokenizer): the test tokenizer's ids are a
# subset of it, and the embedding and output layers have the published run's shapes.
# Note: TorchTitan 0.2.2 puts cuDNN attention first among SDPA's backends
# (models/attention.py), the published run (a late-2024 nightly) took PyTorch's FlashAttention-2
# port.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${SEER_BUILD_DIR:-$root/build}"
venv="${SEER_VENV:-$root/.venv}"
dir="${SEER_TORCHTITAN_DIR:-$(dirname "$root")/torchtitan-env}"
steps="${SEER_TORCHTITAN_STEPS:-15}"
limit="${SEER_TORCHTITAN_TIMEOUT:-1800}"
published=5762

case "$(realpath -m "$dir")/" in
  "$root"/*) echo "torchtitan_validate: SEER_TORCHTITAN_DIR must be outside the repository ($root)" >&2
             exit 2 ;;
esac

if [[ "${SEER_SKIP_BUILD:-0}" != 1 ]]; then
  "$root/scripts/build.sh"
  "$root/scripts/setup-python.sh"
fi
py="$venv/bin/python"
[[ -x "$py" && -x "$build/bin/seer" ]] || {
  echo "torchtitan_validate: need $build/bin/seer and $venv (scripts/build.sh, scripts/setup-python.sh)" >&2
  exit 2
}

# TorchTitan 0.2.2 and, pinned, every package it needs that .venv does not have (resolved with
# `pip install --dry-run --report` against .venv's PyTorch 2.15). --no-deps: pip never touches torch.
tt_version=0.2.2
tt_commit=73a0e6979dd10b6b1904098eb3c8f62c18ab87ce  # tag v0.2.2
site="$dir/site-$tt_version"
packages=(
  torchtitan==0.2.2 datasets==5.2.0 tomli==2.5.0 torchdata==0.11.0 einops==0.8.2 pillow==13.0.0
  tensorboard==2.21.0 tokenizers==0.23.3 tyro==1.0.17 absl-py==2.5.1 dill==0.4.1
  docstring_parser==0.18.0 grpcio==1.85.3 huggingface_hub==2.4.0 Markdown==3.11.3
  multiprocess==0.70.19 packaging==26.3 protobuf==7.36.2 pyarrow==26.0.1 PyYAML==6.0.4
  tensorboard-data-server==0.7.2 tqdm==4.70.1 typeguard==4.6.1 urllib3==2.8.0 Werkzeug==3.1.9
  pandas==3.1.1 requests==2.34.2 xxhash==4.1.0 certifi==2026.10.19.post1 charset-normalizer==3.5.2
  click==8.5.1 hf-xet==1.8.0 httpx2==2.16.2 httpcore2==2.16.2 idna==3.20 python-dateutil==4.0.0
  anyio==4.16.0 truststore==0.10.5 tzdata==2026.6 h11==0.16.0
)
if ! PYTHONPATH="$site" "$py" -c "import torchtitan, tyro, datasets, torchdata, tomli" 2>/dev/null; then
  echo "== installing TorchTitan $tt_version into $site"
  mkdir -p "$dir"
  "$venv/bin/pip" install --quiet --no-deps --target "$site" "${packages[@]}"
fi
PYTHONPATH="$site" "$py" -c "import torch, torchtitan; assert torch.__file__.startswith('$venv'), torch.__file__"

# Test assets and the training config at the release's tag, checked against their git blob ids.
assets="$dir/assets-$tt_version"
declare -A blobs=(
  [tests/assets/tokenizer/tokenizer.json]=7eed211ed092f413541518ba1bd0e71d3789502e
  [tests/assets/tokenizer/tokenizer_config.json]=c2aad203a522950fa1c16d585680d4e2d6ee16a5
  [tests/assets/c4_test/data.json]=3dac4f760dd949a4bbd4d0080a11ea122d90f831
  [torchtitan/models/llama3/train_configs/llama3_8b.toml]=ef86d783bf4347d34f4b36530597229af8dc1634
)
local_name() {
  case "$1" in
    tests/assets/tokenizer/*) echo "tokenizer/$(basename "$1")" ;;
    tests/assets/c4_test/*) echo "c4_test/data.json" ;;
    *) echo "llama3_8b.toml" ;;
  esac
}
for path in "${!blobs[@]}"; do
  dest="$assets/$(local_name "$path")"
  [[ -s "$dest" ]] && continue
  mkdir -p "$(dirname "$dest")"
  if [[ -n "${SEER_TORCHTITAN_ASSETS:-}" ]]; then
    cp "$SEER_TORCHTITAN_ASSETS/$(local_name "$path")" "$dest"
    continue
  fi
  echo "== fetching $path"
  curl -fsSL --retry 3 -o "$dest.part" \
    "https://raw.githubusercontent.com/pytorch/torchtitan/$tt_commit/$path"
  got="$(git hash-object "$dest.part")"
  if [[ "$got" != "${blobs[$path]}" ]]; then
    echo "torchtitan_validate: $path: blob $got, expected ${blobs[$path]}" >&2
    exit 1
  fi
  mv "$dest.part" "$dest"
done

run="$dir/run"
rm -rf "$run"
mkdir -p "$run"
log="$run/train.log"
cmd=(
  "$build/bin/seer" run --cluster grand-teton:1 --out "$run/seer"
  # TorchTitan marks no steps with NVTX: the report finds them from the recurring collectives
  # (CUB's NVTX ranges, inside the embedding backward, are a library's and never steps).
  -- "$venv/bin/torchrun" --standalone --nproc_per_node 8
  --local-ranks-filter 0 --role rank --tee 3
  -m torchtitan.train --job.config_file "$assets/llama3_8b.toml"
  --job.dump_folder "$run/dump"
  --model.hf_assets_path "$assets/tokenizer"
  --training.dataset c4_test --training.dataset_path "$assets/c4_test"
  --training.local_batch_size 2 --training.steps "$steps" --metrics.log_freq 1
  "$@"
)
echo "== PYTHONPATH=$site PYTORCH_ALLOC_CONF=expandable_segments:True ${cmd[*]}"
start=$(date +%s)
status=0
(cd "$run" && PYTHONPATH="$site" PYTORCH_ALLOC_CONF="expandable_segments:True" \
  timeout --signal=TERM --kill-after=30 "$limit" nice -n 10 "${cmd[@]}") 2>&1 | tee "$log" || status=$?
wall=$(( $(date +%s) - start ))
echo "== wall time ${wall} s"
if [[ "$status" == 124 ]]; then
  echo "torchtitan_validate: the run did not end within $limit s (SEER_TORCHTITAN_TIMEOUT); log: $log" >&2
  exit 1
fi
[[ "$status" == 0 ]] || { echo "torchtitan_validate: the run failed (exit $status); log: $log" >&2; exit "$status"; }

"$py" - "$log" "$run/seer/summary.json" "$published" <<'EOF'
import json, re, statistics, sys

log, summary, published = sys.argv[1], sys.argv[2], float(sys.argv[3])
text = re.sub(r"\x1b\[[0-9;]*m", "", open(log, errors="replace").read())
tps = [(int(s), int(t.replace(",", "")))
       for s, t in re.findall(r"step:\s*(\d+)\s.*?tps:\s*([\d,]+)", text)]
if len(tps) < 2:
    sys.exit("torchtitan_validate: fewer than 2 steps logged")
print("\n== tokens/s/GPU (TorchTitan's figure, rank 0; step 1 is warm-up)")
for step, value in tps:
    print(f"  step {step:3d}  {value:7,d}" + ("   (warm-up)" if step == tps[0][0] else ""))
mean = statistics.mean(v for _, v in tps[1:])
print(f"  mean of steps {tps[1][0]}-{tps[-1][0]}: {mean:,.0f} tokens/s/GPU"
      f" (step time {2 * 8192 / mean:.3f} s)")
print(f"  published (TorchTitan, FSDP eager, Grand Teton H100): {published:,.0f}"
      f"  -> error {100 * (mean / published - 1):+.1f} %")
s = json.load(open(summary))
st = s["steps"]
if st.get("count", 0) > 0:
    print(f"== Seer's report: {st['count']} steps from {st['source']} ({st.get('label', '')}),"
          f" mean {st['mean_ns'] / 1e9:.3f} s after the first"
          f" ({2 * 8192 / (st['mean_ns'] / 1e9):,.0f} tokens/s/GPU), {st.get('bound', '?')}-bound")
else:
    print("== Seer's report found no steps (" + st.get("note", "whole run") + ")")
shares = s["time_sources"]["kernel_shares"]
print("== time sources of simulated kernel time: " +
      ", ".join(f"{k} {100 * v:.2f} %" for k, v in shares.items()))
total = s["time_sources"]["kernel_ns"]
print("== top 10 kernels by simulated time (all ranks)")
for k in s["kernels"][:10]:
    print(f"  {100 * k['total_ns'] / total:5.1f} %  {k['total_ns'] / 1e9:9.3f} s  {k['count']:6d}"
          f"  {k['source']:8s} {k['name'][:110]}")
EOF
