#!/bin/bash
# Reading a NYTimes-sized UCI corpus (issue 11): the text parser, the binary cache, and numpy's
# reader (bench/numpy_spectral.py's read_uci), each timed from outside with farm-bench (medians of
# whole-process wall time and peak memory), plus the in-process read time bench_read prints.
#
#   bash bench/bench_read.sh [BUILD_DIR] [CORPUS_DIR] [RUNS]
#
# BUILD_DIR (default build) must hold the dplda and bench_read targets
# (cmake --build BUILD_DIR --target dplda bench_read). CORPUS_DIR (default /work/nyt) is
# written by `dplda generate` when it has no docword.txt (937 MB, about a minute).
# The page cache is warm in every run (the file was just read): "text" is a parse of text that
# is in memory, "cache" a load of the binary cache that is in memory. numpy runs RUNS - 2 times
# (at least 1): it takes a minute a run.
set -euo pipefail
BUILD=${1:-build}
CORPUS=${2:-/work/nyt}
RUNS=${3:-5}
DPLDA=$BUILD/app/dplda
READ=$BUILD/bench/bench_read
PY=/usr/bin/python3  # Debian's numpy and scipy (python3-numpy, python3-scipy)
HERE=$(cd "$(dirname "$0")" && pwd)
for exe in "$DPLDA" "$READ"; do
  [ -x "$exe" ] || { echo "bench_read.sh: $exe not found (build the dplda and bench_read targets)" >&2; exit 2; }
done
if [ ! -f "$CORPUS/docword.txt" ]; then
  echo "== generating $CORPUS"
  "$DPLDA" generate --vocab 20000 --topics 20 --docs 300000 --doc-length 230 --seed 1 --out "$CORPUS"
fi
ls -l "$CORPUS/docword.txt"
echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"

echo "== in-process read times (one run each)"
rm -f "$CORPUS/docword.txt.dplda-cache"
"$READ" --mode text "$CORPUS"
"$READ" --mode load "$CORPUS"   # parses and writes the cache
ls -l "$CORPUS/docword.txt.dplda-cache"
"$READ" --mode cache "$CORPUS"
OMP_NUM_THREADS=1 "$READ" --mode text "$CORPUS"

echo "== text parse (no cache), $RUNS runs"
farm-bench -n "$RUNS" --timeout 1200 -- "$READ" --mode text "$CORPUS"
echo "== text parse, one thread, $RUNS runs"
OMP_NUM_THREADS=1 farm-bench -n "$RUNS" --timeout 1200 -- "$READ" --mode text "$CORPUS"
echo "== binary cache load, $RUNS runs"
farm-bench -n "$RUNS" --timeout 600 -- "$READ" --mode cache "$CORPUS"
echo "== the cache's key alone (XXH3 of the whole text, issue 28), $RUNS runs"
farm-bench -n "$RUNS" --timeout 600 -- "$READ" --mode key "$CORPUS"

NUMPY_RUNS=$(( RUNS > 3 ? RUNS - 2 : 1 ))
echo "== numpy read_uci (np.loadtxt + scipy CSR), $NUMPY_RUNS runs"
farm-bench -n "$NUMPY_RUNS" --warmup 0 --timeout 3600 -- \
  "$PY" -c "import sys; sys.path.insert(0, '$HERE'); import numpy_spectral as m; c, l, d = m.read_uci('$CORPUS'); print(c.shape, c.nnz)"
