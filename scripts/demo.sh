#!/usr/bin/env bash
# The headless demo: a synthetic corpus, the non-private fit and the four private
# configurations, a real-text corpus (Debian's fortunes), and the figure-2 sweep with its
# plots and report. Everything lands in out/demo (or $1).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${1:-out/demo}"
DPLDA=build/app/dplda
mkdir -p "$OUT"
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}"

echo "== synthetic corpus (d = 50, k = 5, N = 100000)"
"$DPLDA" generate --vocab 50 --topics 5 --docs 100000 --seed 1 --out "$OUT/synthetic" --force

echo "== non-private fit"
"$DPLDA" run --corpus "$OUT/synthetic" --topics 5 --truth "$OUT/synthetic/truth.json" --json "$OUT/run-none.json"

for config in 1 2 3 4 input; do
  echo "== private fit, configuration $config, epsilon 1, delta 1e-5 (sound bounds, secure noise)"
  "$DPLDA" run --corpus "$OUT/synthetic" --topics 5 --truth "$OUT/synthetic/truth.json" --config "$config" \
    --epsilon 1 --delta 1e-5 --json "$OUT/run-config-$config.json" || true  # "nothing released" is a result
done

if [ -d /usr/share/games/fortunes ]; then
  # The whole folder: every fortune file split at its "%" lines (the .dat indexes are skipped).
  echo "== real text: Debian's fortunes"
  "$DPLDA" import-text --input /usr/share/games/fortunes --separator % --vocab 2000 --out "$OUT/fortunes" --force
  "$DPLDA" run --corpus "$OUT/fortunes" --topics 10 --json "$OUT/run-fortunes.json"
fi

if [ -x build/app/dplda-sweep ]; then  # `dplda sweep` runs it (a build without the UI has none)
  echo "== figure 2 sweep (error vs epsilon, configurations 1-4 and the baseline)"
  "$DPLDA" sweep --preset figure2 --trials 5 --formats png,pdf,svg --out "$OUT/figure2" --force
  echo "report: $OUT/figure2/report.md"
fi
if [ -x build/app/dplda-explorer ]; then
  echo "== the desktop app, rendered offscreen with the figure-2 preset in its Sweeps tab"
  build/app/dplda-explorer --screenshot "$OUT/explorer.png" --experiment figure2 --trials 5 --tab sweeps \
    --size 1500x1100 || true  # a screenshot is a bonus, not the demo's purpose
fi
echo "demo outputs are in $OUT"
