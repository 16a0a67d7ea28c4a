#!/usr/bin/env bash
# Screenshots of the real desktop app as a newcomer sees it: the app runs under Xvfb
# with the xcb platform and a window manager (openbox), Start is pressed with
# xdotool (F5, the Run › Start shortcut), and the screen is grabbed with xwd while
# the run goes and after it ends; then a PyTorch profile is opened (--open, the
# File › Open code path). Unlike `pipescope --screenshot`, nothing here fits or
# arranges the view: what the images show is what the user gets.
#
# Usage: tools/window-screenshots.sh [BUILD_DIR] [OUT_DIR]
#   BUILD_DIR  default build/release (needs app/gui/pipescope built)
#   OUT_DIR    default docs/screenshots
# Writes live-run.png, run-finished.png and pytorch-trace.png.
# Needs: Xvfb, openbox, xdotool, xwd (x11-apps), convert (imagemagick).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build/release}
out=${2:-$root/docs/screenshots}
app=$build/app/gui/pipescope
[ -x "$app" ] || { echo "window-screenshots: $app not built (ninja -C $build pipescope)" >&2; exit 1; }
for tool in Xvfb openbox xdotool xwd convert; do
  command -v "$tool" >/dev/null || { echo "window-screenshots: $tool missing (apt-get install xvfb openbox xdotool x11-apps imagemagick)" >&2; exit 1; }
done
mkdir -p "$out"

display=:${PIPESCOPE_SCREENSHOT_DISPLAY:-97}
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

Xvfb "$display" -screen 0 1920x1080x24 -nolisten tcp >"$tmp/xvfb.log" 2>&1 &
pids+=($!)
export DISPLAY=$display QT_QPA_PLATFORM=xcb
for _ in $(seq 50); do xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done
openbox >"$tmp/openbox.log" 2>&1 &
pids+=($!)
# A fresh settings location: no layout, preset or backend from an earlier session.
export XDG_CONFIG_HOME=$tmp/config

grab() { xwd -root -silent | convert xwd:- -strip "$1"; echo "window-screenshots: wrote $1"; }

# Waits for a top-level window whose title contains $1; prints its id.
window() {
  for _ in $(seq 600); do  # a loaded machine may take a while to start the app
    local id
    id=$(xdotool search --onlyvisible --name "$1" 2>/dev/null | head -1) || true
    if [ -n "$id" ]; then echo "$id"; return 0; fi
    sleep 0.1
  done
  echo "window-screenshots: no window titled '$1' appeared" >&2
  return 1
}

# 1. The README's start command, then Start. The default backend is Auto: the
#    simulator on a machine without an NVIDIA GPU, at its default slow motion.
"$app" >"$tmp/app1.log" 2>&1 &
app1=$!
pids+=($app1)
win=$(window pipescope)
xdotool windowactivate --sync "$win" 2>/dev/null || true
xdotool windowsize "$win" 1920 1050 windowmove "$win" 0 0
sleep 2  # dock layout settles
xdotool key --window "$win" F5
sleep "${PIPESCOPE_LIVE_SECONDS:-2.5}"
grab "$out/live-run.png"
# The default run lasts a few seconds at 200x slow motion; the status bar says
# "Finished" at the end. Wait generously, then grab.
sleep "${PIPESCOPE_FINISH_SECONDS:-12}"
grab "$out/run-finished.png"
kill "$app1" 2>/dev/null || true
wait "$app1" 2>/dev/null || true

# 2. A PyTorch profile (ResNet-18, pinned memory, 2 streams), opened.
"$app" --open "$root/tests/fixtures/pytorch-profiler-resnet18-pinned-2streams.json.gz" >"$tmp/app2.log" 2>&1 &
app2=$!
pids+=($app2)
win=$(window pipescope)
xdotool windowsize "$win" 1920 1050 windowmove "$win" 0 0
sleep 4
grab "$out/pytorch-trace.png"
kill "$app2" 2>/dev/null || true
wait "$app2" 2>/dev/null || true
