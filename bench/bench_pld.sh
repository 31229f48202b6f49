#!/usr/bin/env bash
# Issue 25 §3: the PLD accountant's cost on real ledgers (target: PLD accounting of a run <= 50 ms).
# Runs bench_pld (configurations 1, 2, the whitened release with and without a private vocabulary
# charged, DP-VI ledgers; each ledger's comparison timed REPEATS times, median) and prints a
# Markdown table for docs/BENCHMARKS.md with the load average. Not part of ctest.
#
#   bench/bench_pld.sh [BUILD_DIR] [REPEATS] [DOCS]     (defaults: <repo>/build, 15, 20000)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${1:-$ROOT/build}
REPEATS=${2:-15}
DOCS=${3:-20000}
BENCH=$BUILD/bench/bench_pld
[ -x "$BENCH" ] || { echo "bench_pld: $BENCH is not built (cmake --build $BUILD --target bench_pld)" >&2; exit 1; }
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
"$BENCH" --docs "$DOCS" --repeats "$REPEATS" > "$OUT"
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
python3 - "$OUT" "$REPEATS" "$DOCS" "$LOAD_BEFORE" "$LOAD_AFTER" <<'PY'
import json, sys
path, repeats, docs, before, after = sys.argv[1:6]
rows = [json.loads(l) for l in open(path) if l.strip()]
print(f"PLD accounting of a run (bench_pld --docs {docs} --repeats {repeats}; load {before} -> {after})\n")
print("| ledger | epsilon | releases | ledger's epsilon | gaussian-dp | pld | pld grid | median ms |")
print("|---|---|---|---|---|---|---|---|")
for r in rows:
    own = r.get("basic", r.get("zcdp"))
    print(f"| {r['case']} | {r['epsilon']:g} | {r['releases']} | {own:.4g} | {r['gaussian_dp']:.4g} | "
          f"{r['pld']:.4g} | {r['pld_interval']:g} | {r['median_ms']:.2f} |")
worst = max(r["median_ms"] for r in rows)
print(f"\nWorst median: {worst:.2f} ms (target <= 50 ms: {'met' if worst <= 50 else 'NOT met'}).")
PY
