#!/usr/bin/env bash
# Installs the build dependencies (Debian 12 packages) and builds everything into build/.
set -euo pipefail
cd "$(dirname "$0")/.."
PACKAGES=(build-essential cmake qt6-base-dev qt6-svg-dev libqcustomplot-dev libeigen3-dev
          libspectra-dev libgl1-mesa-dev fortunes libarmadillo-dev libopenblas-dev libopenblas0-serial
          nlohmann-json3-dev libxxhash-dev libssl-dev poppler-utils zlib1g-dev desktop-file-utils appstream)
missing=()
for p in "${PACKAGES[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# BLAS: the programs link Debian's single-threaded OpenBLAS (libopenblas0-serial) by its path
# (core/CMakeLists.txt); the machine's BLAS alternatives are left as they are.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
