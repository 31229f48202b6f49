#!/usr/bin/env bash
# The test command: every Qt Test executable through ctest (GUI tests run offscreen).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d build ] || bash scripts/setup.sh
cmake --build build -j"$(nproc)"
QT_QPA_PLATFORM=offscreen ctest --test-dir build --output-on-failure -j"$(nproc)"
