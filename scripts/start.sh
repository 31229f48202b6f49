#!/usr/bin/env bash
# Quick start: install and build, then open the desktop app when there is a display, or run
# the headless demo (plots + report under out/demo) when there is none.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -x build/app/dplda-explorer ]; then
  exec build/app/dplda-explorer "$@"
fi
exec bash scripts/demo.sh
