#!/usr/bin/env bash
# Installs what pipescope needs, builds it, and runs every test: the full build
# (unit, UI offscreen, CLI, man pages and completions, and, where a GPU exists, gpu
# tests), an ASan+UBSan build of all tests, a ThreadSanitizer build of the Qt-free
# engine tests, and a short fuzzing pass over every importer. This is the command CI
# runs (.ci/run). Each step is one CMake workflow preset (CMakePresets.json), so a
# developer reproduces any of them with `cmake --workflow --preset NAME`.
# The sanitizer presets leave out a few single-threaded fitting tests that run a
# thousand simulations (60-215 s each under a sanitizer, 2 s in release): the
# release step runs them, and the code they drive is covered by shorter tests there.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
"$root/scripts/install-deps.sh"

export CTEST_PARALLEL_LEVEL=${CTEST_PARALLEL_LEVEL:-$(nproc)}
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
step() { printf '\n=== %s (%s) ===\n' "$*" "$(date +%T)"; }

step "Build and test: release"
cmake --workflow --preset release

step "Window tests under Xvfb (xcb platform, as on a desktop)"
xvfb-run -a -s "-screen 0 1920x1080x24" env QT_QPA_PLATFORM=xcb build/release/tests/pipescope_ui_tests \
  --gtest_filter='LiveViewWindow.*:OpenedTraceWindow.*:MainWindow.*:LiveFollow.*:ClippedText.*:PresentationMode.*:WindowFit.*:Keyboard.*'

step "Build and test: AddressSanitizer + UndefinedBehaviorSanitizer"
cmake --workflow --preset asan

step "Build and test: ThreadSanitizer (Qt-free engine)"
cmake --workflow --preset tsan

step "Fuzz every importer (${PIPESCOPE_FUZZ_SECONDS:-30} s each)"
cmake --workflow --preset fuzz

step "All test suites passed"
