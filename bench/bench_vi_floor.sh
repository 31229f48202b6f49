#!/usr/bin/env bash
# Issue 25 §2: how close does non-private VI get to the spectral error on the figure-2 generator
# (d = 50, k = 5, alpha0 = 1, Dirichlet(1) prior, beta = 0.1, Poisson(100) lengths), and is the gap
# optimisation (passes, starts) or the model? For N = 10^4 and 10^5, two corpus seeds: the spectral
# fit, then online VB on Poisson-sampled minibatches of 1000 with alpha learned (the headline
# preset's VI) for 10, 30 and 100 passes from three starts, and full-batch VB for 50 and 200
# iterations. Prints the l2 error against the truth of each fit (an accuracy benchmark, not a timing).
#
#   bench/bench_vi_floor.sh BUILD_DIR [OUT_DIR]
set -euo pipefail
D=${1:?usage: bench_vi_floor.sh BUILD_DIR [OUT_DIR]}/app/dplda
OUT=${2:-/tmp/vi-floor}
mkdir -p "$OUT"
l2() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["error"]["l2_mean"])' "$1"; }
for N in 10000 100000; do
  for seed in 1 2; do
    C=$OUT/N$N-s$seed
    [ -f "$C/docword.txt" ] || "$D" generate --vocab 50 --topics 5 --docs $N --alpha0 1 --prior random --beta 0.1 \
      --doc-length 100 --seed $seed --out "$C" > /dev/null
    fit=(run --corpus "$C" --topics 5 --alpha0 1 --truth "$C/truth.json")
    "$D" "${fit[@]}" --json "$C/spectral.json" > /dev/null
    echo "N=$N seed=$seed spectral l2 $(l2 "$C/spectral.json")"
    for passes in 10 30 100; do
      for init in 1 2 3; do
        "$D" "${fit[@]}" --model vi --vi poisson --vi-alpha learned --batch-size 1000 --iterations $passes --seed $init \
          --json "$C/vi.json" > /dev/null
        echo "N=$N seed=$seed online VB passes=$passes start=$init l2 $(l2 "$C/vi.json")"
      done
    done
    for iterations in 50 200; do
      "$D" "${fit[@]}" --model vi --vi batch --vi-alpha learned --iterations $iterations --seed 1 --json "$C/vi.json" > /dev/null
      echo "N=$N seed=$seed batch VB iterations=$iterations start=1 l2 $(l2 "$C/vi.json")"
    done
  done
done
