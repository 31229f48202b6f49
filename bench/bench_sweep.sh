#!/usr/bin/env bash
# Benchmark of the experiment engine (issue 5's target: ≤ 10 s on this 2-core machine):
#   dplda sweep --preset figure2 --formats none
# = 10 ε × 5 configurations (none, 1-4) × 10 trials on d = 50, k = 5, N = 1e5, corpus drawn and
# noise-free stages computed once. Repeats it and prints a Markdown table: the sweep's own time
# (corpus, non-private run, trials), the process's wall time, and the mean ms per trial of each
# configuration (median over repeats). Not part of ctest.
#
#   bench/bench_sweep.sh [BUILD_DIR] [REPEATS]     (defaults: <repo>/build, 5)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${1:-$ROOT/build}
REPEATS=${2:-5}
DPLDA=$BUILD/app/dplda
[ -x "$DPLDA" ] || { echo "bench_sweep: $DPLDA is not built (cmake --build $BUILD --target dplda)" >&2; exit 1; }
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
for r in $(seq "$REPEATS"); do
  start=$(date +%s.%N)
  "$DPLDA" sweep --preset figure2 --formats none --out "$OUT/run$r" 2>/dev/null > "$OUT/stdout$r"
  end=$(date +%s.%N)
  echo "wall $start $end" >> "$OUT/stdout$r"
done
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
python3 - "$OUT" "$REPEATS" "$LOAD_BEFORE" "$LOAD_AFTER" <<'PY'
import re, statistics, sys, subprocess
out, repeats, load_before, load_after = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
sweep, wall, per = [], [], {}
for r in range(1, repeats + 1):
    for line in open(f"{out}/stdout{r}"):
        m = re.match(r"figure2: (\d+) runs in ([\d.e+-]+) s on (\d+) threads", line)
        if m: sweep.append(float(m.group(2))); runs, threads = m.group(1), m.group(3)
        m = re.match(r"\s+configuration (\S+): ([\d.e+-]+) ms per run", line)
        if m: per.setdefault(m.group(1), []).append(float(m.group(2)))
        m = re.match(r"wall ([\d.]+) ([\d.]+)", line)
        if m: wall.append(float(m.group(2)) - float(m.group(1)))
cpu = subprocess.run(["sh", "-c", "lscpu | sed -n 's/^Model name: *//p'"], capture_output=True, text=True).stdout.strip()
f = lambda v: f"{statistics.median(v):.2f} s (min {min(v):.2f}, max {max(v):.2f})"
print(f"`bench/bench_sweep.sh`, {repeats} repeats; {cpu}, {threads} threads; load average before/after "
      f"{load_before} / {load_after}")
print()
print("| measure | value |")
print("|---|---|")
print(f"| trial runs per sweep | {runs} |")
print(f"| sweep time (corpus + non-private run + trials) | {f(sweep)} |")
print(f"| process wall time | {f(wall)} |")
for cfg, v in per.items():
    print(f"| configuration {cfg}: mean per trial | {statistics.median(v):.3f} ms |")
PY
