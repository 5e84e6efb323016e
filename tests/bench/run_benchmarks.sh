#!/usr/bin/env bash
# Prints Seer's benchmark figures: launch-path overhead, the demo's wall time, network solver.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${SEER_BUILD_DIR:-$root/build}"
seer="$build/bin/seer"

for mode in modeled measured; do
  echo "== launch path, --host-time $mode =="
  "$seer" run --quiet --host-time "$mode" -- "$build/tests/bench/launch/launch_bench_cuda" 1000000
done

echo "== demo (pipeline_demo 8 x 64 MiB) wall time =="
for mode in modeled measured; do
  /usr/bin/time -f "$mode: %e s wall, %M KiB max RSS (seer process)" \
    "$seer" run --quiet --host-time "$mode" -- "$build/examples/pipeline_demo" 8 64 >/dev/null
done

if [ -x "$build/tests/bench/netsim/netsim_bench" ]; then
  echo "== network solver =="
  "$build/tests/bench/netsim/netsim_bench"
fi
