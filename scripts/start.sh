#!/usr/bin/env bash
# Installs what pipescope needs, builds it, and starts the desktop app. Without an
# NVIDIA GPU (or without a display) it still works: the app runs the simulator, and
# with no display the command line tool's demo runs instead.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
"$root/scripts/install-deps.sh"
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPIPESCOPE_BUILD_TESTS=OFF
cmake --build build/release -j"$(nproc)"

if [ -x build/release/app/gui/pipescope ] && { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; }; then
  exec build/release/app/gui/pipescope "$@"
fi
echo "No display found: running the command line demo (the multi-stream preset) instead." >&2
exec build/release/app/cli/pipescope-cli run --preset multi-stream --backend auto "$@"
