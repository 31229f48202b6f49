#!/usr/bin/env bash
# Issue 27 §1, §2, §5: the eigen steps at real scale, with the numpy reference on the same cores.
#
#   bench/bench_eigen.sh BUILD_DIR [REPEATS] [DATA_DIR] [CASES]
#
# CASES (comma-separated, default all): 
#   whitened  `dplda run` of the whitened release on the Debian descriptions (d = 8000, k = 10,
#             ε = 1, gdp, secure noise): the top eigenpairs of M̂2ᶜ + E, E a dense 8000 × 8000 noise
#             matrix; the corpus from WHITENED_CORPUS or bench/make_real_corpus.sh
#   nyt1 nyt5 NYTimes-sized corpora (`dplda generate --vocab 20000 --topics 20 --docs 300000
#             --doc-length 230 --seed 1 / --seed 5`): bench_fit (the fit alone, its eigen passes
#             and residuals), the whole `dplda run`, and numpy_spectral.py (scipy eigsh/ARPACK)
#   small     the app's session at N = 20 000, d = 50, k = 5: a whitened run and its ε sweep (21 trials)
#
# Every command runs REPEATS times, interleaved with its reference where there is one; the script
# prints min / median / max wall seconds, median CPU and the largest peak RSS (/usr/bin/time), and
# the load average before and after; REFERENCE_DPLDA=<another dplda> times the whitened case of that
# binary too, in turn with this one. The numpy reference gets the same two cores as dplda: the
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

# time_one LABEL CMD...: one run, its wall and CPU seconds and peak RSS appended to $DATA/times-LABEL.txt.
time_one() {
  local label=$1 t0 t1 u s m
  shift
  t0=$(date +%s%N)
  /usr/bin/time -f "%U %S %M" -o "$DATA/time.txt" "$@" > "$DATA/last-$label.out" 2>&1
  t1=$(date +%s%N)
  read -r u s m < "$DATA/time.txt"
  awk -v a="$t0" -v b="$t1" -v u="$u" -v s="$s" -v m="$m" 'BEGIN { printf "%.3f %.2f %d\n", (b - a) / 1e9, u + s, m }' \
    >> "$DATA/times-$label.txt"
}

# summary LABEL: min / median / max wall, median CPU, peak RSS of the runs recorded for LABEL.
summary() {
  local f="$DATA/times-$1.txt" cpu peak
  cpu=$(cut -d' ' -f2 "$f" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
  peak=$(cut -d' ' -f3 "$f" | sort -g | tail -n 1)
  cut -d' ' -f1 "$f" | sort -g | awk -v l="$1" -v c="$cpu" -v p="$peak" '{a[NR] = $1}
    END {printf "%-28s wall median %8.3f s  (min %.3f, max %.3f)  cpu %s s  peak %d MiB  [%d runs]\n",
         l, a[int((NR + 1) / 2)], a[1], a[NR], c, p / 1024, NR}'
}

# time_runs LABEL CMD...: REPEATS runs, then their summary.
time_runs() {
  local label=$1
  shift
  rm -f "$DATA/times-$label.txt"
  for _ in $(seq "$REPEATS"); do time_one "$label" "$@"; done
  summary "$label"
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
      # WHITENED_CORPUS: an existing import of the descriptions with d = 8000 (`import-text --vocab 8000
      # --vocab-from-counts`); else built under DATA. A corpus of another d is refused, not timed.
      dir=${WHITENED_CORPUS:-$DATA/debian/corpus}
      [ -f "$dir/docword.txt" ] || bash "$ROOT/bench/make_real_corpus.sh" "$DPLDA" "$(dirname "$dir")" 8000 >&2
      if [ "$(sed -n 2p "$dir/docword.txt")" != 8000 ]; then
        echo "whitened: $dir has d = $(sed -n 2p "$dir/docword.txt"), not 8000 (import with --vocab-from-counts)" >&2
        exit 1
      fi
      run=("$DPLDA" run --corpus "$dir" --topics 10 --alpha0 0.1 --config whitened --accountant gdp --epsilon 1)
      "${run[@]}" --noise-seed 1 | grep -E 'eigenpairs of the released|^  M2' || true
      if [ -n "${REFERENCE_DPLDA:-}" ]; then  # another build's dplda, run in turn with this one
        # on its own links to the same text: a build of another cache version would rebuild the
        # shared cache at every turn
        refdir=$DATA/whitened-reference-corpus
        mkdir -p "$refdir"
        for f in "$dir"/*; do
          case $f in *.dplda-cache) ;; *) ln -f "$f" "$refdir/" 2>/dev/null || cp "$f" "$refdir/" ;; esac
        done
        "$REFERENCE_DPLDA" run --corpus "$refdir" --topics 10 > /dev/null  # its cache, once
        rm -f "$DATA/times-whitened-debian.txt" "$DATA/times-whitened-reference.txt"
        for _ in $(seq "$REPEATS"); do
          time_one whitened-debian "${run[@]}"
          time_one whitened-reference "$REFERENCE_DPLDA" run --corpus "$refdir" "${run[@]:4}"
        done
        summary whitened-debian
        summary whitened-reference
      else
        time_runs whitened-debian "${run[@]}"
      fi
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
      # The sweep a whitened click starts in the app (the session's default grid and trials).
      time_runs small-whitened-sweep "$DPLDA" sweep --corpus "$dir" --topics 5 --configs whitened/gdp \
        --epsilons 0.1:10:7 --trials 3 --formats none --force --out "$DATA/session-small-sweep"
      ;;
  esac
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
