#!/usr/bin/env bash
# The fuzz campaigns of docs/FUZZING.md on a sanitizer build (AddressSanitizer +
# UndefinedBehaviorSanitizer): thousands of mutated corpora, truth files, session files,
# command-line values and file-system objects around the command, each run under a time and
# memory limit. Not part of CI (CI runs the same
# campaigns with a few hundred cases on the normal build: `ctest -L fuzz`).
#
#   scripts/fuzz.sh [CASES] [SEED]      # default: 2000 cases per campaign, seed 1
#
# Environment: BUILD_DIR (default build-asan), JOBS (default nproc), CAMPAIGNS (default
# "corpus truth session options resources files text"), DPLDA_FUZZ_TIMEOUT (s per process, default 120 under ASan),
# DPLDA_FUZZ_MEMORY (MiB per process, default 2048), DPLDA_FUZZ_EXPLORER (sessions opened in
# dplda-explorer, default 8), DPLDA_FUZZ_KEEP (folder for failing cases, default
# $BUILD_DIR/fuzz-failures). Exits non-zero when any campaign finds a failing case.
set -euo pipefail
cd "$(dirname "$0")/.."

CASES=${1:-2000}
SEED=${2:-1}
BUILD=${BUILD_DIR:-build-asan}
JOBS=${JOBS:-$(nproc)}
CAMPAIGNS=${CAMPAIGNS:-corpus truth session options resources files text}

# -O1 keeps the sanitized numerics fast enough; Debug keeps Eigen's index assertions.
# -fno-sanitize-recover makes any undefined behaviour abort, so the campaign sees it as a crash.
# DPLDA_NATIVE stays on (the normal build's kernels); Qt and QCustomPlot are not instrumented.
FLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS="$FLAGS" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
UNIT_TESTS="tst_text_escape tst_safe_file tst_uci_io tst_corpus_cache tst_truth_io tst_text_import tst_synthetic_generator tst_session tst_cli tst_cli_files tst_cli_resources tst_vocabulary_compaction tst_memory_budget"
targets="dplda dplda-explorer $UNIT_TESTS"
for c in $CAMPAIGNS; do targets="$targets tst_fuzz_$c"; done
# shellcheck disable=SC2086
cmake --build "$BUILD" -j"$JOBS" --target $targets

export QT_QPA_PLATFORM=offscreen
export DPLDA_CLI="$PWD/$BUILD/app/dplda"
export DPLDA_SOURCE_DIR="$PWD"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
export DPLDA_FUZZ_KEEP=${DPLDA_FUZZ_KEEP:-$PWD/$BUILD/fuzz-failures}
mkdir -p "$DPLDA_FUZZ_KEEP"

status=0
echo "== unit tests of the readers, the session loader and the command line, sanitized"
for t in $UNIT_TESTS; do
  if ! "$BUILD/tests/$t" -silent; then status=1; fi
done
for c in $CAMPAIGNS; do
  echo "== $c campaign: $CASES cases, seed $SEED"
  if ! DPLDA_FUZZ_CASES=$CASES DPLDA_FUZZ_SEED=$SEED "$BUILD/tests/tst_fuzz_$c"; then status=1; fi
done
if [ "$status" -ne 0 ]; then
  echo "fuzz: failures found; failing cases are in $DPLDA_FUZZ_KEEP (each with a README.txt)" >&2
fi
exit "$status"
