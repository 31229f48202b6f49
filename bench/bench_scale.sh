#!/usr/bin/env bash
# Issue 11 (compute part): the spectral fit at real-corpus scale, C++ and the numpy reference side
# by side in one run, on three corpora:
#   nyt      synthetic, NYTimes-sized: d = 20 000, k = 20, N = 300 000, length 230 (6.7e7 non-zeros)
#   debian   the Debian package descriptions (bench/make_real_corpus.sh), d = 8 000, k = 50
#   figure2  synthetic, d = 50, k = 5, N = 100 000, length 100 (the figure-2 corpus)
#
#   bench/bench_scale.sh BUILD_DIR [REPEATS] [DATA_DIR] [CORPORA]
#
# For each corpus: the whole `dplda run` (read through the binary cache + fit + output) REPEATS
# times (median wall and CPU, peak RSS); bench_fit's fit alone (REPEATS fits in one process: median
# fit wall, per-stage medians, peak RSS) with the defaults (block Lanczos eigen step, fast
# decomposer), and once with the robust decomposer and (nyt, debian) the Spectra eigen step; and
# numpy_spectral.py (NUMPY_REPEATS fits, default REPEATS: the same estimators, scipy eigsh/ARPACK
# for d > 1000, numpy's BLAS printed; it reports its load time and fit time apart). Corpora are
# generated once into DATA_DIR (default BUILD_DIR/bench-data) and reused. CORPORA: a
# comma-separated subset (default nyt,debian,figure2). Raw JSON lines: DATA_DIR/scale.jsonl.
set -euo pipefail

BUILD=${1:?usage: bench_scale.sh BUILD_DIR [REPEATS] [DATA_DIR] [CORPORA]}
REPEATS=${2:-3}
NUMPY_REPEATS=${NUMPY_REPEATS:-$REPEATS}  # numpy's NYTimes fit takes about a minute
DATA=${3:-$BUILD/bench-data}
CORPORA=${4:-nyt,debian,figure2}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DPLDA=$BUILD/app/dplda
FIT=$BUILD/bench/bench_fit
PY=/usr/bin/python3
OUT=$DATA/scale.jsonl
mkdir -p "$DATA"
: > "$OUT"

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# numpy $($PY -c 'import numpy; print(numpy.__version__)'), BLAS (Debian alternative): $(readlink -f /etc/alternatives/libblas.so.3-x86_64-linux-gnu 2>/dev/null || echo unknown)"
run() {  # label, command...: runs it, keeps its JSON line
  local label=$1
  shift
  echo "## $label: $*" >&2
  local line
  line=$("$@" | tail -n 1)
  echo "{\"label\":\"$label\",\"result\":$line}" >> "$OUT"
  echo "$label $line"
}

# The median of the arguments.
med() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

corpus() {  # name -> corpus dir (generated on first use)
  case $1 in
    nyt)
      [ -f "$DATA/nyt/docword.txt" ] ||
        "$DPLDA" generate --vocab 20000 --topics 20 --docs 300000 --doc-length 230 --seed 1 --out "$DATA/nyt" >&2
      echo "$DATA/nyt" ;;
    figure2)
      [ -f "$DATA/synthetic/docword.txt" ] ||
        "$DPLDA" generate --vocab 50 --topics 5 --docs 100000 --doc-length 100 --seed 1 --out "$DATA/synthetic" >&2
      echo "$DATA/synthetic" ;;
    debian)
      [ -f "$DATA/debian/corpus/docword.txt" ] || bash "$ROOT/bench/make_real_corpus.sh" "$DPLDA" "$DATA/debian" 8000 >&2
      echo "$DATA/debian/corpus" ;;
  esac
}

for name in ${CORPORA//,/ }; do
  dir=$(corpus "$name")
  case $name in
    nyt) k=20 ;;
    debian) k=50 ;;
    figure2) k=5 ;;
  esac
  truth=()
  [ -f "$dir/truth.json" ] && truth=(--truth "$dir/truth.json")
  # The whole command (read through the binary cache + fit + output), REPEATS times: median wall,
  # median CPU (user + sys) and the largest peak RSS, from /usr/bin/time.
  "$DPLDA" run --corpus "$dir" --topics "$k" >/dev/null  # builds the cache on a first run
  walls=(); cpus=(); peak=0
  for _ in $(seq "$REPEATS"); do
    t0=$(date +%s%N)
    /usr/bin/time -f "%U %S %M" -o "$DATA/time.txt" "$DPLDA" run --corpus "$dir" --topics "$k" >/dev/null
    t1=$(date +%s%N)
    read -r u sy m < "$DATA/time.txt"
    walls+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }')"); cpus+=("$(awk -v u="$u" -v s="$sy" 'BEGIN { printf "%.2f", u + s }')"); [ "$m" -gt "$peak" ] && peak=$m
  done
  wall=$(med "${walls[@]}"); cpu=$(med "${cpus[@]}")
  echo "{\"label\":\"$name/dplda-run\",\"result\":{\"wall_s_median\":$wall,\"cpu_s_median\":$cpu,\"peak_rss_kib\":$peak,\"runs\":$REPEATS}}" >> "$OUT"
  echo "$name/dplda-run: median wall ${wall} s, CPU ${cpu} s, peak ${peak} KiB over $REPEATS runs"
  # The fit alone (default: block Lanczos eigen step, fast decomposer), then the options.
  run "$name/cpp" "$FIT" --corpus "$dir" --topics "$k" "${truth[@]}" --repeats "$REPEATS" \
    --save-model "$DATA/$name-cpp-model.json"
  run "$name/cpp-robust" "$FIT" --corpus "$dir" --topics "$k" "${truth[@]}" --repeats 1 --decomposer robust
  if [ "$name" != figure2 ]; then
    run "$name/cpp-spectra" "$FIT" --corpus "$dir" --topics "$k" "${truth[@]}" --repeats 1 --eigen spectra
  fi
  # numpy: against the truth when there is one, else against the C++ model (real text).
  ref=("${truth[@]}")
  [ ${#ref[@]} -eq 0 ] && ref=(--truth "$DATA/$name-cpp-model.json")
  run "$name/numpy" "$PY" "$ROOT/bench/numpy_spectral.py" --corpus "$dir" --topics "$k" "${ref[@]}" \
    --repeats "$NUMPY_REPEATS"
  numpyFit=$(tail -n 1 "$OUT" | "$PY" -c 'import json, sys; print(json.load(sys.stdin)["result"]["fit_ms"]["median"] / 1e3)')
  echo "$name: numpy's fit alone (median) / the whole dplda run (median) = $(awk -v n="$numpyFit" -v w="$wall" 'BEGIN { printf "%.2f", n / w }')"
done
echo "# raw: $OUT"
