#!/usr/bin/env bash
# Installs the build dependencies (Debian 12 packages) and builds everything into build/.
set -euo pipefail
cd "$(dirname "$0")/.."
PACKAGES=(build-essential cmake qt6-base-dev qt6-svg-dev libqcustomplot-dev libeigen3-dev
          libspectra-dev libgl1-mesa-dev fortunes libarmadillo-dev libopenblas-dev libopenblas0-serial
          nlohmann-json3-dev libxxhash-dev poppler-utils)
missing=()
for p in "${PACKAGES[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# BLAS: core pins OpenBLAS to one thread (results must not depend on a thread count; our own
# OpenMP lanes use the cores), but the pthreads build of OpenBLAS still starts a worker thread at
# load time that spins in sched_yield for ~0.1 s: a third of a small `dplda run` on 2 cores
# (docs/BENCHMARKS.md, issue 11). Debian's single-threaded build has no pool; it is selected
# unless the machine's administrator chose another BLAS than the default pthreads build.
for alt in libblas.so.3 liblapack.so.3 libopenblas.so.0; do
  name="$alt-x86_64-linux-gnu"
  serial="/usr/lib/x86_64-linux-gnu/openblas-serial/$alt"
  current=$(update-alternatives --query "$name" 2>/dev/null | sed -n 's/^Value: //p' || true)
  if [ -e "$serial" ] && [ "$current" != "$serial" ] && { [ -z "$current" ] || [[ "$current" == */openblas-pthread/* ]]; }; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    echo "setup: selecting the single-threaded OpenBLAS for $alt (was ${current:-unset})"
    $SUDO update-alternatives --set "$name" "$serial" >/dev/null
  fi
done
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
