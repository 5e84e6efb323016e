#!/usr/bin/env bash
# Configures and builds Seer into build/ (or $SEER_BUILD_DIR).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${SEER_BUILD_DIR:-$root/build}"
"$root/scripts/setup.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo ${SEER_CMAKE_ARGS:-} >/dev/null
ninja -C "$build" -j "$(nproc)"
