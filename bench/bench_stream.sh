#!/usr/bin/env bash
# Issue 27 §4: peak memory and wall time of `dplda run` on a corpus ten times NYTimes (N = 3·10⁶,
# d = 2·10⁴, k = 20, length 230: 6.7·10⁸ non-zeros), read through the binary cache, with a
# baseline binary beside it (e.g. one built from main before streaming) run in turn.
#
#   bench/bench_stream.sh BUILD_DIR [REPEATS] [DATA_DIR] [BASELINE_DPLDA] [DOCS]
#
# The corpus is generated once into DATA_DIR/nyt<DOCS> (about 10 GB of text, 16 GB of memory to
# generate and, the first run, ~11 GB to parse into the binary cache beside it: that first run is
# not timed). Then REPEATS runs of each binary in turn (never two at once), each under
# /usr/bin/time -v: wall seconds and peak RSS per run, and the medians. DOCS (default 3000000)
# gives a smaller corpus for the per-document scaling (300000 is NYTimes-sized).
set -euo pipefail

BUILD=${1:?usage: bench_stream.sh BUILD_DIR [REPEATS] [DATA_DIR] [BASELINE_DPLDA] [DOCS]}
REPEATS=${2:-3}
DATA=${3:-$BUILD/bench-data}
BASELINE=${4:-}
DOCS=${5:-3000000}
DPLDA=$BUILD/app/dplda
CORPUS=$DATA/nyt$DOCS
mkdir -p "$DATA"

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
if [ ! -f "$CORPUS/docword.txt" ]; then
  nice "$DPLDA" generate --vocab 20000 --topics 20 --docs "$DOCS" --doc-length 230 --seed 1 --out "$CORPUS" >&2
fi
if [ ! -f "$CORPUS/docword.txt.dplda-cache" ]; then
  "$DPLDA" run --corpus "$CORPUS" --topics 20 > /dev/null  # parses the text, writes the cache
fi

measure() {  # label, binary: one run, prints "label wall_s peak_MiB"
  local t
  t=$(mktemp)
  /usr/bin/time -v "$2" run --corpus "$CORPUS" --topics 20 > /dev/null 2> "$t"
  awk -v label="$1" '/Elapsed \(wall clock\)/ { n = split($NF, p, ":"); w = 0; for (i = 1; i <= n; ++i) w = w * 60 + p[i] }
       /Maximum resident set size/ { m = $NF / 1024 }
       END { printf "%s %.1f %.0f\n", label, w, m }' "$t"
  rm -f "$t"
}

results=$(mktemp)
for _ in $(seq "$REPEATS"); do
  measure streamed "$DPLDA" | tee -a "$results"
  if [ -n "$BASELINE" ]; then measure baseline "$BASELINE" | tee -a "$results"; fi
done
median() {  # the median and range of a column of numbers
  sort -n | awk '{ v[NR] = $1 } END { if (NR) printf "%s (%s-%s)", v[int((NR + 1) / 2)], v[1], v[NR] }'
}
for label in streamed baseline; do
  grep -q "^$label " "$results" || continue
  echo "$label: median wall $(grep "^$label " "$results" | cut -d' ' -f2 | median) s," \
       "median peak $(grep "^$label " "$results" | cut -d' ' -f3 | median) MiB, $(grep -c "^$label " "$results") runs"
done
echo "# load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
rm -f "$results"
