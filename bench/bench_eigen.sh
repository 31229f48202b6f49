#!/usr/bin/env bash
# Issue 27 §1, §2, §5: the eigen steps at real scale, with the numpy reference on the same cores.
#
#   bench/bench_eigen.sh BUILD_DIR [REPEATS] [DATA_DIR] [CASES]
#
# CASES (comma-separated, default all): 
#   whitened  `dplda run` of the whitened release on the Debian descriptions (d = 8000, k = 10,
#             ε = 1, gdp): the top eigenpairs of M̂2ᶜ + E, E a dense 8000 × 8000 noise matrix
#   nyt1 nyt5 NYTimes-sized corpora (`dplda generate --vocab 20000 --topics 20 --docs 300000
#             --doc-length 230 --seed 1 / --seed 5`): bench_fit (the fit alone, its eigen passes
#             and residuals), the whole `dplda run`, and numpy_spectral.py (scipy eigsh/ARPACK)
#   small     the app's session at N = 20 000, d = 50, k = 5: a whitened run and its ε sweep
#
# Every command runs REPEATS times, interleaved with its reference where there is one; the script
# prints min / median / max wall seconds, median CPU and the largest peak RSS (/usr/bin/time), and
# the load average before and after. The numpy reference gets the same two cores as dplda: the
# pthreads OpenBLAS (LD_LIBRARY_PATH below) with OPENBLAS_NUM_THREADS=2, and OPENBLAS_CORETYPE /
# OPENBLAS_L2_SIZE unset for its command only (set on some machines for older OpenBLAS builds, they
# slow a current numpy); the kernel it then runs is printed (threadpoolctl).
# Requirements: Debian's python3-numpy, python3-scipy, python3-threadpoolctl, libopenblas0-pthread.
set -euo pipefail

BUILD=${1:?usage: bench_eigen.sh BUILD_DIR [REPEATS] [DATA_DIR] [CASES]}
REPEATS=${2:-5}
DATA=${3:-$BUILD/bench-data}
CASES=${4:-whitened,nyt1,nyt5,small}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DPLDA=$BUILD/app/dplda
FIT=$BUILD/bench/bench_fit
PY=/usr/bin/python3
PTHREADS=/usr/lib/x86_64-linux-gnu/openblas-pthread
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
mkdir -p "$DATA"

# numpy with the pthreads OpenBLAS on OMP_NUM_THREADS threads (an array, not a function: /usr/bin/time
# runs it)
NUMPY=(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE LD_LIBRARY_PATH=$PTHREADS OPENBLAS_NUM_THREADS=$OMP_NUM_THREADS "$PY")

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-);" \
  "load $(cut -d' ' -f1-3 /proc/loadavg); OMP_NUM_THREADS=$OMP_NUM_THREADS; commit $(git -C "$ROOT" rev-parse --short HEAD)"
echo "# numpy: $("${NUMPY[@]}" -c 'import numpy, threadpoolctl; i = threadpoolctl.threadpool_info(); print(numpy.__version__, [(x.get("internal_api"), x.get("num_threads"), x.get("architecture"), x.get("filepath")) for x in i])')"

# time_runs LABEL CMD...: REPEATS runs; prints min / median / max wall, median CPU, peak RSS.
time_runs() {
  local label=$1
  shift
  local walls=() cpus=() peak=0 t0 t1 u s m
  for _ in $(seq "$REPEATS"); do
    t0=$(date +%s%N)
    /usr/bin/time -f "%U %S %M" -o "$DATA/time.txt" "$@" > "$DATA/last-$label.out" 2>&1
    t1=$(date +%s%N)
    read -r u s m < "$DATA/time.txt"
    walls+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')")
    cpus+=("$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')")
    [ "$m" -gt "$peak" ] && peak=$m
  done
  printf '%s\n' "${walls[@]}" | sort -g | awk -v l="$label" -v c="$(printf '%s\n' "${cpus[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')" -v p="$peak" \
    '{a[NR]=$1} END {printf "%-28s wall median %8.3f s  (min %.3f, max %.3f)  cpu %s s  peak %d MiB  [%d runs]\n", l, a[int((NR+1)/2)], a[1], a[NR], c, p/1024, NR}'
}

nyt() {  # seed -> corpus dir, generated once
  local dir=$DATA/nyt-seed$1
  [ -f "$dir/docword.txt" ] || "$DPLDA" generate --vocab 20000 --topics 20 --docs 300000 --doc-length 230 \
    --seed "$1" --out "$dir" >&2
  echo "$dir"
}

for c in ${CASES//,/ }; do
  case $c in
    whitened)
      dir=$ROOT/out/corpora/debian/corpus
      [ -f "$dir/docword.txt" ] || bash "$ROOT/bench/make_real_corpus.sh" "$DPLDA" "$ROOT/out/corpora/debian" 8000 >&2
      run=("$DPLDA" run --corpus "$dir" --topics 10 --alpha0 0.1 --config whitened --accountant gdp --epsilon 1)
      "${run[@]}" --noise-seed 1 | grep -E 'eigenpairs of the released|^  M2' || true
      time_runs whitened-debian "${run[@]}"
      ;;
    nyt1 | nyt5)
      dir=$(nyt "${c#nyt}")
      "$DPLDA" run --corpus "$dir" --topics 20 > /dev/null  # writes the binary cache once
      "$FIT" --corpus "$dir" --topics 20 --truth "$dir/truth.json" --repeats 1 |
        tail -n 1 | "$PY" -c 'import json, sys; r = json.load(sys.stdin); print("  fit", {k: v for k, v in r.items() if k.startswith("eigen") or k in ("fit_ms", "stage_ms", "l2_error")})'
      time_runs "$c-fit(bench_fit)" "$FIT" --corpus "$dir" --topics 20 --repeats 1
      time_runs "$c-dplda-run" "$DPLDA" run --corpus "$dir" --topics 20
      time_runs "$c-numpy(load+fit)" "${NUMPY[@]}" "$ROOT/bench/numpy_spectral.py" --corpus "$dir" --topics 20 \
        --truth "$dir/truth.json" --repeats 1
      grep -o '"fit_ms": {[^}]*}' "$DATA/last-$c-numpy(load+fit).out" | sed 's/^/  numpy /' || true
      ;;
    small)
      dir=$DATA/session-small
      [ -f "$dir/docword.txt" ] || "$DPLDA" generate --vocab 50 --topics 5 --docs 20000 --doc-length 100 --seed 1 \
        --out "$dir" >&2
      time_runs small-whitened "$DPLDA" run --corpus "$dir" --topics 5 --config whitened --accountant gdp --epsilon 1
      ;;
  esac
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
