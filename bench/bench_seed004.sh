#!/usr/bin/env bash
# Benchmarks of seed 004's online and private tensor power methods (issue 12's targets:
# Algorithm 3 at d = 200, k = 10, L = 20, R = 30 in <= 2 s; the online method on the figure-2
# corpus with n = 1e4 per step in <= 1 s), and the wall time of the two experiment presets.
# Prints a Markdown section for docs/BENCHMARKS.md. Not part of ctest.
#
#   bench/bench_seed004.sh [BUILD_DIR] [REPEATS]     (defaults: <repo>/build, 5)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${1:-$ROOT/build}
REPEATS=${2:-5}
BENCH=$BUILD/bench/bench_seed004
DPLDA=$BUILD/app/dplda
for exe in "$BENCH" "$DPLDA"; do
  [ -x "$exe" ] || { echo "bench_seed004: $exe is not built (cmake --build $BUILD)" >&2; exit 1; }
done
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
{
  "$BENCH" private --d 200 --k 10 --L 20 --R 30 --repeats "$REPEATS"
  "$BENCH" private --d 200 --k 10 --L 20 --R 30 --repeats "$REPEATS" --dense
  "$BENCH" private --d 200 --k 10 --L 20 --R 30 --repeats 3 --dense --unpacked
  OMP_NUM_THREADS=1 "$BENCH" private --d 200 --k 10 --L 20 --R 30 --repeats "$REPEATS" --dense
  "$BENCH" online --n 10000 --R 30 --repeats "$REPEATS"
  "$BENCH" online --n 10000 --R 30 --repeats "$REPEATS" --threads 1
} > "$OUT/bench.jsonl"
for preset in online-tpm dp-tpm; do
  start=$(date +%s.%N)
  "$DPLDA" sweep --preset "$preset" --formats none --out "$OUT/$preset" 2>/dev/null > "$OUT/$preset.txt"
  end=$(date +%s.%N)
  echo "{\"bench\": \"preset\", \"preset\": \"$preset\", \"wall_s\": $(python3 -c "print($end - $start)")}" >> "$OUT/bench.jsonl"
done
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
python3 - "$OUT/bench.jsonl" "$REPEATS" "$LOAD_BEFORE" "$LOAD_AFTER" <<'PY'
import json, subprocess, sys
path, repeats, before, after = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
rows = [json.loads(l) for l in open(path)]
cpu = subprocess.run(["sh", "-c", "lscpu | sed -n 's/^Model name: *//p'"], capture_output=True, text=True).stdout.strip()
cores = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
print(f"`bench/bench_seed004.sh`; {cpu}, {cores} cores; load average before/after {before} / {after}\n")
print("| what | median wall | min – max wall | median CPU | target |")
print("|---|---|---|---|---|")
for r in rows:
    if r["bench"] == "private_tpm":
        what = (f"Algorithm 3, d = {r['d']}, k = {r['k']}, L = {r['L']}, R = {r['R']}, {r['tensor']}, "
                f"{r.get('threads', '?')} thread(s) (K = {r['queries']} queries, {r['noise_draws']:.0f} normals)")
        target = "≤ 2 s"
    elif r["bench"] == "online_tpm":
        what = (f"Algorithm 2, figure-2 corpus (N = {r['docs']}, nnz = {r['nnz']}), n = {r['n']}, R = {r['R']}, "
                f"L = {r['L']}, {r['threads']} thread(s) ({r['passes']:.0f} passes)")
        target = "≤ 1 s"
    elif r["bench"] == "batch_tensor_and_robust_tpm":
        what = f"for comparison: T-hat + batch robust method on the same corpus, {r['threads']} thread(s)"
        target = ""
    else:
        print(f"| `dplda sweep --preset {r['preset']} --formats none` | {r['wall_s']:.1f} s (1 run) | | | |")
        continue
    print(f"| {what} | {r['wall_ms_median']:.1f} ms | {r['wall_ms_min']:.1f} – {r['wall_ms_max']:.1f} ms | "
          f"{r['cpu_ms_median']:.1f} ms | {target} |")
PY
