#!/usr/bin/env bash
# Issue 10: one epoch of online variational LDA, dplda vs scikit-learn's LatentDirichletAllocation
# (online, same K, batch size, tau0 = learning_offset 10, kappa = learning_decay 0.7, alpha = alpha0/K,
# eta = 1/K, same epochs), on the same public train/test split; both models' held-out perplexity
# by dplda's document-completion estimator (the sklearn model is scored with --score-model), plus
# sklearn's own perplexity() bound on the test part.
#
#   bench/bench_vi.sh DPLDA_BINARY OUT_DIR [REAL_CORPUS_DIR]
#
# Env: REPEATS (3) timed dplda runs per corpus (median), SK_REPEATS (1), EPOCHS (1), BATCH (128).
# Corpora: the figure-2 corpus (d = 50, k = 5, N = 1e5); the Debian descriptions (k = 50) when
# REAL_CORPUS_DIR is given (bench/make_real_corpus.sh builds it: OUT/corpus). Needs python3-sklearn
# (apt-get install python3-sklearn; not part of scripts/setup.sh).
set -euo pipefail
DPLDA=${1:?usage: bench_vi.sh DPLDA_BINARY OUT_DIR [REAL_CORPUS_DIR]}
OUT=${2:?usage: bench_vi.sh DPLDA_BINARY OUT_DIR [REAL_CORPUS_DIR]}
REAL=${3:-}
REPEATS=${REPEATS:-3}; SK_REPEATS=${SK_REPEATS:-1}; EPOCHS=${EPOCHS:-1}; BATCH=${BATCH:-128}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
[ -d "$OUT/fig2" ] || "$DPLDA" generate --vocab 50 --topics 5 --docs 100000 --seed 1 --out "$OUT/fig2" >/dev/null

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
field() { /usr/bin/python3 -c "import json,sys; o=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {'o': o}))" "$1" "$2"; }

run_case() {  # NAME CORPUS K ALPHA0
  local name=$1 corpus=$2 k=$3 a0=$4 dir="$OUT/$1"
  mkdir -p "$dir"
  local common=(run --corpus "$corpus" --topics "$k" --alpha0 "$a0" --model vi --vi online --iterations "$EPOCHS"
                --batch-size "$BATCH" --holdout 0.1 --holdout-seed 1 --seed 1)
  "$DPLDA" "${common[@]}" --write-split "$dir/split" --json "$dir/vi.json" >/dev/null
  local times=()
  for r in $(seq "$REPEATS"); do
    "$DPLDA" "${common[@]}" --json "$dir/vi_$r.json" >/dev/null
    times+=("$(field "$dir/vi_$r.json" "o['non_private_diagnostics']['milliseconds']")")
  done
  local ours; ours=$(printf '%s\n' "${times[@]}" | median)
  local sk_times=()
  for r in $(seq "$SK_REPEATS"); do
    /usr/bin/python3 "$HERE/sklearn_lda.py" --corpus "$dir/split/train" --topics "$k" --alpha0 "$a0" --method online \
      --batch-size "$BATCH" --max-iter "$EPOCHS" --learning-offset 10 --model-out "$dir/sklearn_model.json" \
      --test "$dir/split/test" > "$dir/sklearn_$r.json"
    sk_times+=("$(field "$dir/sklearn_$r.json" "o['fit_ms']['median']")")
  done
  local theirs; theirs=$(printf '%s\n' "${sk_times[@]}" | median)
  "$DPLDA" "${common[@]}" --score-model "$dir/sklearn_model.json" --json "$dir/scored.json" >/dev/null
  local p_ours p_sk p_sk_own p_ours_bound
  p_ours=$(field "$dir/scored.json" "round(o['perplexity']['perplexity'], 3)")
  p_ours_bound=$(field "$dir/scored.json" "round(o['perplexity']['elbo_bound_perplexity'], 3)")
  p_sk=$(field "$dir/scored.json" "round(o['score_model_perplexity']['perplexity'], 3)")
  p_sk_own=$(field "$dir/sklearn_1.json" "round(o['sklearn_perplexity_test'], 3)")
  printf '| %s | %s | %s | %.0f | %.0f | %.1f× | %s | %s | %s | %s |\n' "$name" "$k" "$EPOCHS" "$ours" "$theirs" \
    "$(echo "$theirs / $ours" | bc -l)" "$p_ours" "$p_sk" "$p_ours_bound" "$p_sk_own"
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| corpus | k | epochs | dplda ms (median of $REPEATS) | sklearn ms | ratio | perplexity dplda | perplexity sklearn model | dplda ELBO bound | sklearn perplexity() |"
echo "|---|---|---|---|---|---|---|---|---|---|"
run_case fig2 "$OUT/fig2" 5 1
if [ -n "$REAL" ]; then run_case debian "$REAL" 50 1; fi
