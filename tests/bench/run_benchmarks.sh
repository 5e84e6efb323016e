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

root_flag=()
[ "$(id -u)" -eq 0 ] && root_flag=(--allow-run-as-root)
echo "== collective benchmark sweep 8 B - 1 GiB, every operation (wall time of seer run) =="
for spec in "16 dgx-h100:2" "128 dgx-h100:16"; do
  set -- $spec
  out=$(mktemp -d)
  start=$(date +%s.%N)
  "$seer" run --quiet --host-time modeled --cluster "$2" --out "$out" -- \
    mpirun "${root_flag[@]}" --oversubscribe -np "$1" "$build/examples/coll_bench" \
    -b 8 -e 1G -f 2 -n 5 -w 1 -o all >/dev/null
  end=$(date +%s.%N)
  python3 - "$out/run.json" "$1" "$start" "$end" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
wall = float(sys.argv[4]) - float(sys.argv[3])
print(f"{sys.argv[2]:>4} ranks (processes): {wall:.1f} s wall, {run['records']} records, "
      f"{run['blocking_requests']} blocking calls, {run['records'] / run['wall_seconds']:.0f} records/s")
PY
  rm -rf "$out"
done

echo "== session record throughput (1M kernel launches, one rank) =="
out=$(mktemp -d)
"$seer" run --quiet --host-time modeled --out "$out" -- "$build/tests/bench/launch/launch_bench_cuda" 1000000 >/dev/null
python3 -c "import json,sys; r=json.load(open('$out/run.json')); print(f\"{r['records']} records in {r['wall_seconds']:.2f} s: {r['records']/r['wall_seconds']:.0f} records/s\")"
rm -rf "$out"

echo "== compute models, per evaluation =="
"$build/tests/bench/model/model_bench" --benchmark_min_time=0.2

echo "== one 8 GiB AllReduce on dgx-h100:128 (1024 GPUs, one process driving them) =="
/usr/bin/time -f "%e s wall, %M KiB max RSS (seer)" "$seer" run --quiet --host-time modeled \
  --cluster dgx-h100:128 -- "$build/examples/coll_bench" -g 1024 -b 8G -e 8G -n 1 -w 0 \
  -o allreduce | grep -v '^#'

if [ -x "$build/tests/bench/netsim/netsim_bench" ]; then
  echo "== network solver =="
  "$build/tests/bench/netsim/netsim_bench"
fi
