#!/usr/bin/env bash
# Scale benchmark (not a test): dp_train and the collective benchmark as 128 and 256 MPI ranks
# on one host under `seer run --host-time modeled`, printing wall time, the simulated step or
# bus bandwidth, and peak host memory: the whole machine's (memory in use, sampled every 0.1 s,
# above what was in use before the run) and the largest single process's RSS.
#   tests/bench/scale/run_scale.sh [RANKS...]      default: 128 256
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
build="${SEER_BUILD_DIR:-$root/build}"
seer="$build/bin/seer"
ranks=("$@")
[ ${#ranks[@]} -eq 0 ] && ranks=(128 256)
root_flag=()
[ "$(id -u)" -eq 0 ] && root_flag=(--allow-run-as-root)

used_kib() { awk '/^MemTotal:/ {t=$2} /^MemAvailable:/ {a=$2} END {print t - a}' /proc/meminfo; }

# run NAME RANKS CMD...: runs CMD under seer run, samples memory, prints one line.
run() {
  local name=$1 n=$2
  shift 2
  local out log base peak pid start end
  out=$(mktemp -d)
  log="$out/stdout"
  base=$(used_kib)
  peak=$base
  start=$(date +%s.%N)
  /usr/bin/time -f "%M" -o "$out/maxrss" \
    "$seer" run --quiet --host-time modeled --cluster "dgx-h100:$((n / 8))" --out "$out/run" -- \
    mpirun "${root_flag[@]}" --oversubscribe -np "$n" "$@" >"$log" 2>"$out/stderr" &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    local u
    u=$(used_kib)
    [ "$u" -gt "$peak" ] && peak=$u
    sleep 0.1
  done
  local rc=0
  wait "$pid" || rc=$?
  end=$(date +%s.%N)
  python3 - "$name" "$n" "$start" "$end" "$base" "$peak" "$out" "$rc" <<'PY'
import json, sys, pathlib
name, n, start, end, base, peak, out, rc = sys.argv[1:]
out = pathlib.Path(out)
wall = float(end) - float(start)
maxrss = int((out / "maxrss").read_text().split()[-1]) if (out / "maxrss").exists() else 0
figure = ""
summary = out / "run" / "summary.json"
if summary.exists():
    s = json.loads(summary.read_text())
    if name == "dp_train" and s.get("steps", {}).get("count"):
        figure = f"step {s['steps']['mean_ns'] / 1e6:.3f} ms"
    elif s.get("collectives"):
        c = max(s["collectives"], key=lambda c: c["bytes"])
        figure = f"{c['op']} {c['bytes'] >> 20} MiB busbw {c['busbw_gbs']:.1f} GB/s"
status = "ok" if rc == "0" else f"FAILED (exit {rc}; see {out})"
print(f"{name:10s} {int(n):4d} ranks  wall {wall:7.1f} s  host memory peak "
      f"{(int(peak) - int(base)) / 1048576:6.2f} GiB (largest process {maxrss / 1024:.0f} MiB)"
      f"  {figure}  {status}")
PY
}

echo "# scale benchmark on $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f", $2/1048576}' /proc/meminfo) GiB"
for n in "${ranks[@]}"; do
  run dp_train "$n" "$build/examples/dp_train" --steps 4
  run coll_bench "$n" "$build/examples/coll_bench" -b 64M -e 64M -n 5 -w 1 -o allreduce
done
