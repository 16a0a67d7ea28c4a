#!/usr/bin/env bash
# Installs what pipescope needs, builds it, and runs every test: the full build
# (unit, UI offscreen, CLI and, where a GPU exists, gpu tests), an ASan+UBSan build
# of all tests, a ThreadSanitizer build of the Qt-free engine tests, and a short
# fuzzing pass over every importer. This is the command CI runs (.ci/run).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
"$root/scripts/install-deps.sh"

jobs=$(nproc)
export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen}
export CTEST_OUTPUT_ON_FAILURE=1
step() { printf '\n=== %s (%s) ===\n' "$*" "$(date +%T)"; }

step "Build and test: release"
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPIPESCOPE_WERROR=ON
cmake --build build/release -j"$jobs"
ctest --test-dir build/release -j"$jobs" --timeout 600

step "Window tests under Xvfb (xcb platform, as on a desktop)"
xvfb-run -a -s "-screen 0 1920x1080x24" env QT_QPA_PLATFORM=xcb build/release/tests/pipescope_ui_tests \
  --gtest_filter='LiveViewWindow.*:OpenedTraceWindow.*:MainWindow.*:LiveFollow.*'

step "Build and test: AddressSanitizer + UndefinedBehaviorSanitizer"
cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DPIPESCOPE_SANITIZE=address \
  -DPIPESCOPE_WITH_CUDA=OFF -DPIPESCOPE_BUILD_BENCH=OFF
cmake --build build/asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
  LSAN_OPTIONS=suppressions=$root/tests/lsan.supp:print_suppressions=0 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build/asan -j"$jobs" --timeout 900

step "Build and test: ThreadSanitizer (Qt-free engine)"
cmake -S . -B build/tsan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DPIPESCOPE_SANITIZE=thread \
  -DPIPESCOPE_BUILD_UI=OFF -DPIPESCOPE_WITH_CUDA=OFF -DPIPESCOPE_BUILD_BENCH=OFF
cmake --build build/tsan -j"$jobs" --target pipescope_engine_tests
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
  ctest --test-dir build/tsan -L engine -j"$jobs" --timeout 900

if [ -x fuzz/run.sh ]; then
  step "Fuzz every importer (${PIPESCOPE_FUZZ_SECONDS:-30} s each)"
  fuzz/run.sh "${PIPESCOPE_FUZZ_SECONDS:-30}"
fi

step "All test suites passed"
