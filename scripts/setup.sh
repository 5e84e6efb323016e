#!/usr/bin/env bash
# Installs everything Seer needs on a fresh Debian 12 machine (idempotent).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config python3 python3-venv
  protobuf-compiler libprotobuf-dev libyaml-cpp-dev nlohmann-json3-dev libcli11-dev
  libgtest-dev libgmock-dev libbenchmark-dev libunwind-dev libzstd-dev clang-format
  openmpi-bin libopenmpi-dev
  clang libclang-rt-dev
  libssl-dev libns3-dev libgsl-dev
  libjemalloc-dev libjemalloc2 libtcmalloc-minimal4
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

nvcc="${SEER_NVCC:-/usr/local/cuda/bin/nvcc}"
if [ ! -x "$nvcc" ] || [ ! -f /usr/local/cuda/include/cuda_runtime_api.h ]; then
  echo "setup: the CUDA 13 toolkit (nvcc and headers) is needed to build the examples and tests;" >&2
  echo "       expected it at /usr/local/cuda (set SEER_NVCC to another nvcc)." >&2
  exit 1
fi
