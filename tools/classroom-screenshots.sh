#!/usr/bin/env bash
# Screenshots of the real desktop app on the screens of a classroom, each from a
# first launch with empty settings, so the window places and sizes itself: under Xvfb
# with the xcb platform and a window manager (openbox), driven by keyboard with
# xdotool, grabbed with xwd. Nothing here resizes or arranges the window unless said.
#
#   classroom-1366x768.png      a laptop: lesson 4 picked and run from the Lessons panel
#                               by keyboard (Alt+2, arrow keys, Space, Alt+U)
#   classroom-1920x1080.png     a monitor, the window maximised: a run, then the Sweep
#                               panel run by keyboard (Alt+7, Alt+W)
#   classroom-presentation.png  a 1280x720 projector: lesson 4 in presentation mode
#                               (F11, then a clicker's PageDown, 1, PageDown)
#   classroom-200pct.png        (with --scaled) a 3840x2160 screen at QT_SCALE_FACTOR=2
#
# Usage: tools/classroom-screenshots.sh [--scaled] [BUILD_DIR] [OUT_DIR]
#   BUILD_DIR  default build/release (needs app/gui/pipescope built)
#   OUT_DIR    default docs/screenshots
# Needs: Xvfb, openbox, xdotool, xwd (x11-apps), convert (imagemagick).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
scaled=0
if [ "${1:-}" = "--scaled" ]; then scaled=1; shift; fi
build=${1:-$root/build/release}
out=${2:-$root/docs/screenshots}
app=$build/app/gui/pipescope
[ -x "$app" ] || { echo "classroom-screenshots: $app not built (ninja -C $build pipescope)" >&2; exit 1; }
for tool in Xvfb openbox xdotool xwd convert xdpyinfo; do
  command -v "$tool" >/dev/null || { echo "classroom-screenshots: $tool missing (apt-get install xvfb openbox xdotool x11-apps x11-utils imagemagick)" >&2; exit 1; }
done
mkdir -p "$out"

display=:${PIPESCOPE_SCREENSHOT_DISPLAY:-96}
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# Starts a screen of WxH with a window manager; sets DISPLAY.
screen() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  pids=()
  Xvfb "$display" -screen 0 "$1x24" -nolisten tcp >"$tmp/xvfb.log" 2>&1 &
  pids+=($!)
  export DISPLAY=$display QT_QPA_PLATFORM=xcb
  for _ in $(seq 50); do xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done
  openbox >"$tmp/openbox.log" 2>&1 &
  pids+=($!)
  sleep 0.5
}

# Launches the app with fresh settings (a first launch) and prints its window id.
launch() {
  export XDG_CONFIG_HOME=$tmp/config-$RANDOM
  "$app" "$@" >"$tmp/app.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 200); do
    local id
    id=$(xdotool search --onlyvisible --name pipescope 2>/dev/null | head -1) || true
    if [ -n "$id" ]; then sleep 2; echo "$id"; return 0; fi
    sleep 0.1
  done
  echo "classroom-screenshots: no pipescope window appeared" >&2
  cat "$tmp/app.log" >&2
  return 1
}

keys() { local win=$1; shift; for k in "$@"; do xdotool key --window "$win" "$k"; sleep 0.3; done; }
grab() { xwd -root -silent | convert xwd:- -strip "$1"; echo "classroom-screenshots: wrote $1"; }

# 1. A 1366x768 laptop: lesson 4 from the Lessons panel, all by keyboard.
screen 1366x768
win=$(launch)
xdotool windowactivate --sync "$win" 2>/dev/null || true
keys "$win" alt+2 Down Down Down Tab space alt+u
sleep "${PIPESCOPE_LESSON_SECONDS:-12}"
grab "$out/classroom-1366x768.png"

# 2. A 1920x1080 monitor, the window maximised: a run, then a sweep.
screen 1920x1080
win=$(launch)
xdotool windowactivate --sync "$win" 2>/dev/null || true
xdotool windowsize "$win" 1920 1080 windowmove "$win" 0 0
sleep 1
keys "$win" F5
# The default run plays at 200x slow motion for about 12 s; the sweep waits for it.
sleep "${PIPESCOPE_FINISH_SECONDS:-15}"
keys "$win" alt+7 alt+w
sleep "${PIPESCOPE_SWEEP_SECONDS:-12}"
grab "$out/classroom-1920x1080.png"

# 3. A 1280x720 projector: lesson 4 in presentation mode, stepped with a clicker.
screen 1280x720
win=$(launch)
xdotool windowactivate --sync "$win" 2>/dev/null || true
keys "$win" alt+2 Down Down Down F11
sleep 1
keys "$win" Next 1 Next
sleep "${PIPESCOPE_LESSON_SECONDS:-12}"
grab "$out/classroom-presentation.png"

# 4. 200 % scaling on a 4K screen: the window and its text twice as large, same layout.
if [ "$scaled" = 1 ]; then
  screen 3840x2160
  export QT_SCALE_FACTOR=2
  win=$(launch)
  xdotool windowactivate --sync "$win" 2>/dev/null || true
  keys "$win" F5
  sleep "${PIPESCOPE_FINISH_SECONDS:-15}"
  grab "$out/classroom-200pct.png"
  unset QT_SCALE_FACTOR
fi
