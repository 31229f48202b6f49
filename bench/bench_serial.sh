#!/usr/bin/env bash
# Issue 27 §3: where a NYT-sized fit is serial. Records bench_fit under perf (999 samples per
# second per thread) and prints, per stage, each thread's work, the buckets in which only the main
# thread worked (serial) and the imbalance (bench/serial_fraction.py says how).
#
#   bench/bench_serial.sh BUILD_DIR CORPUS [TOPICS] [THREADS]
#
# Needs perf (Debian's linux-perf) and permission to record (root, or
# kernel.perf_event_paranoid <= 1). Run on a machine doing nothing else: a thread the machine
# holds up looks serial to this method.
set -euo pipefail
BUILD=${1:?usage: bench_serial.sh BUILD_DIR CORPUS [TOPICS] [THREADS]}
CORPUS=${2:?usage: bench_serial.sh BUILD_DIR CORPUS [TOPICS] [THREADS]}
TOPICS=${3:-20}
THREADS=${4:-2}
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg); commit $(git -C "$HERE" rev-parse --short HEAD 2>/dev/null || echo '?')"
OMP_NUM_THREADS=$THREADS perf record -q -o "$OUT/perf.data" -F 999 \
  "$BUILD/bench/bench_fit" --corpus "$CORPUS" --topics "$TOPICS" --repeats 1 > "$OUT/fit.json" 2> /dev/null
perf script -i "$OUT/perf.data" -F tid,time,ip,sym,dso 2> /dev/null > "$OUT/samples.txt"
python3 "$HERE/serial_fraction.py" "$OUT/samples.txt" "$OUT/fit.json"
