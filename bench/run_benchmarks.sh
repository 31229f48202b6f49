#!/usr/bin/env bash
# Performance benchmark of the non-private spectral fit against a vectorised numpy version of
# the same estimators and scikit-learn's variational LDA. Not part of ctest.
#
#   bench/run_benchmarks.sh [BUILD_DIR]        (default: <repo>/build-bench)
#
# Environment knobs (defaults in brackets): SYN_REPEATS [21], NUMPY_REPEATS [5], REAL_REPEATS [3],
# SKLEARN_SYN_MAX_ITER [10], REAL_K [50], NUMPY_REAL_TIMEOUT [1800 s], SKLEARN_REAL_MAX_ITER [2],
# SKLEARN_REAL_TIMEOUT [2400 s], SKIP_SKLEARN_REAL [0]. Timeouts are wall-clock limits.
# Writes the Markdown report to stdout and to docs/BENCHMARKS.md; raw JSON lines and the
# corpora stay in BUILD_DIR/bench-data.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${1:-$ROOT/build-bench}
PY=/usr/bin/python3
DATA=$BUILD/bench-data
SYN_REPEATS=${SYN_REPEATS:-21}
NUMPY_REPEATS=${NUMPY_REPEATS:-5}
REAL_REPEATS=${REAL_REPEATS:-3}
SKLEARN_SYN_MAX_ITER=${SKLEARN_SYN_MAX_ITER:-10}
REAL_K=${REAL_K:-50}
NUMPY_REAL_TIMEOUT=${NUMPY_REAL_TIMEOUT:-1800}
SKLEARN_REAL_MAX_ITER=${SKLEARN_REAL_MAX_ITER:-2}
SKLEARN_REAL_TIMEOUT=${SKLEARN_REAL_TIMEOUT:-2400}
SKIP_SKLEARN_REAL=${SKIP_SKLEARN_REAL:-0}
mkdir -p "$DATA"
RESULTS=$DATA/results.jsonl
COMMANDS=$DATA/commands.txt
: > "$RESULTS"
: > "$COMMANDS"

log() { echo "[bench] $*" >&2; }

# Runs a benchmark command, records it, appends its JSON line (tagged with a label) to RESULTS.
# A command that fails or times out is recorded as {"label":..., "failed": reason}.
run_json() {
  local label=$1 limit=$2
  shift 2
  log "$label: $*"
  echo "$label: $*" | sed "s|$BUILD/|BUILD/|g; s|$ROOT/||g" >> "$COMMANDS"
  local out rc=0
  out=$(timeout "$limit" "$@") || rc=$?
  if [ $rc -eq 0 ] && [ -n "$out" ]; then
    $PY -c 'import json,sys; d=json.loads(sys.argv[2]); d["label"]=sys.argv[1]; print(json.dumps(d))' \
      "$label" "$(tail -n 1 <<< "$out")" >> "$RESULTS"
  else
    local why="exit status $rc"
    [ $rc -eq 124 ] && why="timed out after ${limit} s"
    log "$label failed: $why"
    $PY -c 'import json,sys; print(json.dumps({"label":sys.argv[1],"failed":sys.argv[2]}))' "$label" "$why" \
      >> "$RESULTS"
  fi
}

# --- build -------------------------------------------------------------------------------
# Always (re)configure: the sources are globbed, so new files need a configure step.
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >&2
else
  cmake -S "$ROOT" -B "$BUILD" >&2
fi
cmake --build "$BUILD" --target dplda bench_fit -j2 >&2
DPLDA=$(find "$BUILD" -type f -name dplda -perm -u+x | head -n 1)
BENCH=$(find "$BUILD" -type f -name bench_fit -perm -u+x | head -n 1)
[ -x "$DPLDA" ] && [ -x "$BENCH" ] || { echo "dplda or bench_fit not built in $BUILD" >&2; exit 1; }
BUILD_TYPE=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$BUILD/CMakeCache.txt")
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)

# --- synthetic corpus: d = 50, k = 5, N = 100 000, mean length 100, seed 1 -------------------
SYN=$DATA/synthetic
echo "generate: BUILD/app/dplda generate --vocab 50 --topics 5 --docs 100000 --doc-length 100 --seed 1" \
  "--out BUILD/bench-data/synthetic$([ -f "$SYN/docword.txt" ] && echo '   (already present: reused)')" >> "$COMMANDS"
if [ ! -f "$SYN/docword.txt" ]; then
  "$DPLDA" generate --vocab 50 --topics 5 --docs 100000 --doc-length 100 --seed 1 --out "$SYN" >&2
fi
run_json syn_cpp 600 "$BENCH" --corpus "$SYN" --topics 5 --truth "$SYN/truth.json" --repeats "$SYN_REPEATS" \
  --save-model "$DATA/syn_cpp_model.json"
run_json syn_cpp_simultaneous 600 "$BENCH" --corpus "$SYN" --topics 5 --truth "$SYN/truth.json" \
  --repeats "$SYN_REPEATS" --decomposer simultaneous
run_json syn_numpy 900 $PY "$ROOT/bench/numpy_spectral.py" --corpus "$SYN" --topics 5 --truth "$SYN/truth.json" \
  --repeats "$NUMPY_REPEATS"
run_json syn_numpy_vs_cpp 900 $PY "$ROOT/bench/numpy_spectral.py" --corpus "$SYN" --topics 5 \
  --truth "$DATA/syn_cpp_model.json" --repeats 1
run_json syn_sklearn 1800 $PY "$ROOT/bench/sklearn_lda.py" --corpus "$SYN" --topics 5 --truth "$SYN/truth.json" \
  --method online --max-iter "$SKLEARN_SYN_MAX_ITER"

# --- real text: Debian package descriptions, vocabulary 8000, k = REAL_K ----------------------
REAL=$DATA/debian
echo "real corpus: bench/make_real_corpus.sh BUILD/app/dplda BUILD/bench-data/debian 8000$(
  [ -f "$REAL/corpus/docword.txt" ] && echo '   (already present: reused)')" >> "$COMMANDS"
if [ ! -f "$REAL/corpus/docword.txt" ]; then
  "$ROOT/bench/make_real_corpus.sh" "$DPLDA" "$REAL" 8000 >&2
fi
run_json real_cpp 1200 "$BENCH" --corpus "$REAL/corpus" --topics "$REAL_K" --repeats "$REAL_REPEATS" \
  --save-model "$DATA/real_cpp_model.json"
run_json real_cpp_simultaneous 1200 "$BENCH" --corpus "$REAL/corpus" --topics "$REAL_K" --repeats "$REAL_REPEATS" \
  --decomposer simultaneous
run_json real_numpy "$NUMPY_REAL_TIMEOUT" $PY "$ROOT/bench/numpy_spectral.py" --corpus "$REAL/corpus" \
  --topics "$REAL_K" --truth "$DATA/real_cpp_model.json" --repeats 1
if [ "$SKIP_SKLEARN_REAL" != 1 ]; then
  run_json real_sklearn "$SKLEARN_REAL_TIMEOUT" $PY "$ROOT/bench/sklearn_lda.py" --corpus "$REAL/corpus" \
    --topics "$REAL_K" --truth "$DATA/real_cpp_model.json" --method online --max-iter "$SKLEARN_REAL_MAX_ITER"
fi
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

# --- report -------------------------------------------------------------------------------
MACHINE_CPU=$(lscpu | sed -n 's/^Model name: *//p' | head -n 1)
MACHINE_CORES=$(nproc)
MACHINE_THREADS=$(lscpu | sed -n 's/^Thread(s) per core: *//p' | head -n 1)
MACHINE_MEM=$(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)
CXX=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$BUILD/CMakeCache.txt")
CXX_VERSION=$("$CXX" --version | head -n 1)
GIT_STATE=$(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(cd "$ROOT" && git status --porcelain -- core 2>/dev/null)" ]; then
  GIT_STATE="$GIT_STATE + uncommitted changes in core/"
fi
BLAS=$(readlink -f /etc/alternatives/libblas.so.3-x86_64-linux-gnu 2>/dev/null || echo unknown)

# Hand-written notes (the profile) below this marker in docs/BENCHMARKS.md survive a rerun, and so
# does the table of current figures above HEAD_MARKER (this run's report goes between them).
MARKER='<!-- notes below this line are kept by bench/run_benchmarks.sh -->'
HEAD_MARKER='<!-- the current figures above this line are kept by bench/run_benchmarks.sh -->'
NOTES=$DATA/notes.md
HEAD=$DATA/head.md
: > "$NOTES"
: > "$HEAD"
if [ -f "$ROOT/docs/BENCHMARKS.md" ] && grep -qF "$MARKER" "$ROOT/docs/BENCHMARKS.md"; then
  awk -v m="$MARKER" 'found {print} index($0, m) == 1 {found = 1}' "$ROOT/docs/BENCHMARKS.md" > "$NOTES"
fi
if [ -f "$ROOT/docs/BENCHMARKS.md" ] && grep -qF "$HEAD_MARKER" "$ROOT/docs/BENCHMARKS.md"; then
  awk -v m="$HEAD_MARKER" '{print} index($0, m) == 1 {exit}' "$ROOT/docs/BENCHMARKS.md" > "$HEAD"
  echo >> "$HEAD"
fi
REPORT=$DATA/BENCHMARKS.md
cp "$HEAD" "$REPORT"
$PY - "$RESULTS" "$COMMANDS" >> "$REPORT" <<EOF
import json, sys
rows = {}
for line in open(sys.argv[1]):
    d = json.loads(line)
    rows[d["label"]] = d
commands = open(sys.argv[2]).read().strip()

def get(label, *path):
    d = rows.get(label)
    for p in path:
        if not isinstance(d, dict) or d.get(p) is None:
            return None
        d = d[p]
    return d

def ms(v):
    if v is None: return "–"
    return f"{v/1000:.2f} s" if v >= 10000 else f"{v:.1f} ms" if v >= 10 else f"{v:.2f} ms"

def num(v, f="{:.4f}"):
    return "–" if v is None else f.format(v)

def row(label, name):
    d = rows.get(label)
    if d is None: return f"| {name} | not run | | | | | | |"
    if "failed" in d: return f"| {name} | {d['failed']} | | | | | | |"
    fm = d["fit_ms"]
    err = d.get("error") or {}
    return (f"| {name} | {ms(fm['median'])} | {ms(fm['min'])} – {ms(fm['max'])} | "
            f"{ms(get(label, 'cpu_ms', 'median'))} | {d.get('repeats', 1)} | "
            f"{num(err.get('l1_mean'))} | {num(err.get('l2_mean'))} | {num(d.get('peak_rss_mib'), '{:.0f} MiB')} |")

def verdict(ok):
    return "n/a" if ok is None else ("**PASS**" if ok else "**FAIL**")

syn_cpp, syn_np = get("syn_cpp", "fit_ms", "median"), get("syn_numpy", "fit_ms", "median")
syn_cpp_cpu, syn_np_cpu = get("syn_cpp", "cpu_ms", "median"), get("syn_numpy", "cpu_ms", "median")
real_cpu = get("real_cpp", "cpu_ms", "median")
cpp_l1, np_l1 = get("syn_cpp", "error", "l1_mean"), get("syn_numpy", "error", "l1_mean")
cpp_l2, np_l2 = get("syn_cpp", "error", "l2_mean"), get("syn_numpy", "error", "l2_mean")
real_cpp, real_mem = get("real_cpp", "fit_ms", "median"), get("real_cpp", "peak_rss_mib")
speedup = syn_np / syn_cpp if syn_cpp and syn_np else None
speedup_cpu = syn_np_cpu / syn_cpp_cpu if syn_cpp_cpu and syn_np_cpu else None
# "No worse than numpy": within 2 % relative (the two use different random starts).
no_worse = None if None in (cpp_l1, np_l1, cpp_l2, np_l2) else (cpp_l1 <= np_l1 * 1.02 and cpp_l2 <= np_l2 * 1.02)

print("## The non-private spectral fit (bench/run_benchmarks.sh)")
print()
print("Generated by \`bench/run_benchmarks.sh\` (do not edit by hand; rerun it).")
print()
print("## Machine")
print()
print("- CPU: $MACHINE_CPU, $MACHINE_CORES logical cores ($MACHINE_THREADS thread(s) per core); memory $MACHINE_MEM")
print("- Date: $(date -u '+%Y-%m-%d %H:%M UTC'); load average before/after: $LOAD_BEFORE / $LOAD_AFTER "
      "(the machine is shared, so other jobs may have been running)")
print("- C++: $CXX_VERSION, CMAKE_BUILD_TYPE=$BUILD_TYPE, -march=native, Eigen (no BLAS), "
      f"OpenMP threads {get('syn_cpp', 'threads') or '?'}; source: commit $GIT_STATE")
print(f"- Python: numpy {get('syn_numpy', 'numpy') or '?'} with BLAS \`$BLAS\`, "
      f"scikit-learn {get('syn_sklearn', 'sklearn') or get('real_sklearn', 'sklearn') or '?'}")
print()
print("Fit time = everything after the corpus is in memory (M̂2, eigenpairs, whitening, T̂, decomposition,")
print("unwhitening, simplex projection). Each C++ repeat uses a fresh \`SpectralPipeline\` (no cache reuse).")
print("Peak memory is the process's peak resident set (getrusage ru_maxrss), corpus loading included.")
print("CPU = process CPU time of the fit summed over all threads. numpy (reference BLAS) and sklearn")
print("(n_jobs=1) are single-threaded, so CPU ≈ wall on an idle machine; the C++ moment passes use OpenMP,")
print("so its CPU can exceed its wall time. On a busy machine CPU time is the steadier measure.")
print("Verdicts use wall time.")
print()
for title, prefix, ref in (("Synthetic corpus", "syn", "truth.json"), ("Real text (Debian package descriptions)", "real",
                                                                  "the C++ robust-method output (no ground truth)")):
    c = rows.get(prefix + "_cpp", {})
    print(f"## {title}: N = {c.get('docs', '?')} documents, d = {c.get('vocab', '?')}, "
          f"nnz = {c.get('nnz', '?')}, k = {c.get('topics', '?')}")
    print()
    print(f"Errors are distances to {ref} (Hungarian matching on l2; mean per-topic l1 and l2).")
    print()
    print("| implementation | fit median (wall) | min – max | CPU median | repeats | l1 error | l2 error | peak memory |")
    print("|---|---|---|---|---|---|---|---|")
    print(row(prefix + "_cpp", "C++ dplda (bench_fit)"))
    print(row(prefix + "_cpp_simultaneous", "C++ dplda, simultaneous power method"))
    print(row(prefix + "_numpy", "numpy/scipy, same estimators"))
    if prefix == "syn":
        print(row("syn_numpy_vs_cpp", "numpy vs the C++ output (not vs truth)"))
    d = rows.get(prefix + "_sklearn")
    print(row(prefix + "_sklearn", "scikit-learn LDA" + (f" ({d['method']}, max_iter {d['max_iter']}, "
          f"batch {d['batch_size']})" if d and "method" in d else "")))
    print()
    stages = get(prefix + "_cpp", "stages_ms")
    if stages:
        print("C++ per-stage medians: " + ", ".join(f"{k} {ms(v)}" for k, v in stages.items()) +
              f"; eigensolver: {c.get('eigen_method')}; decomposer iterations {c.get('decomposer_iterations')}.")
    nst = get(prefix + "_numpy", "stages_ms")
    if nst:
        print()
        print("numpy per-stage medians: " + ", ".join(f"{k} {ms(v)}" for k, v in nst.items()) +
              f"; eigensolver: {get(prefix + '_numpy', 'eigen_method')}.")
    print()

print("## Targets")
print()
print("| target | measured | verdict |")
print("|---|---|---|")
print(f"| synthetic fit ≤ 60 ms (median) | wall {ms(syn_cpp)} (CPU {ms(syn_cpp_cpu)}) | "
      f"{verdict(None if syn_cpp is None else syn_cpp <= 60)} |")
print(f"| synthetic ≥ 10× faster than numpy | wall {num(speedup, '{:.1f}×')} (CPU {num(speedup_cpu, '{:.1f}×')}) | "
      f"{verdict(None if speedup is None else speedup >= 10)} |")
print(f"| synthetic error no worse than numpy (l1, l2 within 2 %) | C++ {num(cpp_l1)} / {num(cpp_l2)}, "
      f"numpy {num(np_l1)} / {num(np_l2)} | {verdict(no_worse)} |")
print(f"| real text k = {get('real_cpp', 'topics')} fit ≤ 5 s | wall {ms(real_cpp)} (CPU {ms(real_cpu)}) | "
      f"{verdict(None if real_cpp is None else real_cpp <= 5000)} |")
print(f"| real text peak memory < 2 GB | {num(real_mem, '{:.0f} MiB')} | "
      f"{verdict(None if real_mem is None else real_mem * 1048576 < 2e9)} |")
print()
print("## Commands")
print()
print("BUILD = \`$BUILD\`; other paths are relative to the repository root.")
print()
print("\`\`\`")
print(commands)
print("\`\`\`")
print()
print("Raw JSON lines: \`BUILD/bench-data/results.jsonl\`.")
EOF
{ echo; echo "$MARKER"; cat "$NOTES"; } >> "$REPORT"
cp "$REPORT" "$ROOT/docs/BENCHMARKS.md"
cat "$REPORT"
