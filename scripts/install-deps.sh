#!/usr/bin/env bash
# Installs the Debian packages pipescope needs to build, run and test (Debian 12 /
# Ubuntu 24.04). Skips apt entirely when everything is already there.
# Why each one is needed: see "Dependencies" in README.md.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config  # compiler and build
  qt6-base-dev qt6-charts-dev qt6-svg-dev libgl-dev libqt6opengl6-dev  # desktop app (Widgets, Charts, Svg; Charts needs the OpenGL module)
  nlohmann-json3-dev   # JSON: configs, device profiles, trace files
  rapidjson-dev        # JSON: the fast streaming reader of Chrome/PyTorch traces
  libcli11-dev         # pipescope-cli's command-line parsing
  libzstd-dev zlib1g-dev  # trace file compression; gzip'd PyTorch traces
  libgtest-dev libgmock-dev  # tests
  libbenchmark-dev     # bench/ programs
  clang libclang-rt-14-dev  # libFuzzer targets for the importers
  fonts-dejavu-core    # text in offscreen screenshots and UI tests
  xvfb xauth           # the window tests under a real X server (xcb platform), as well as offscreen
  man-db zsh           # tests of the generated man pages and zsh completion
  python3              # tests: tools/hta-exposed-comm.py, the independent reference for the rank analysis
  desktop-file-utils shared-mime-info  # tests of the .desktop entry and the MIME type
)
if [ "${PIPESCOPE_NO_UI:-0}" = 1 ]; then
  packages=("${packages[@]/qt6-*/}"); packages=("${packages[@]/libqt6*/}"); packages=("${packages[@]/xvfb/}")
fi

missing=()
for p in "${packages[@]}"; do
  [ -n "$p" ] || continue
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then sudo="sudo"; else
    echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
