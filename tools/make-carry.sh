#!/usr/bin/env bash
# Builds .carry/: what the GPU machine lacks to build pipescope without Qt, taken from
# this machine's Debian packages (install them with scripts/install-deps.sh first):
# GoogleTest sources, nlohmann-json, RapidJSON and CLI11 headers, zstd and zlib headers with static
# libraries (static, so nothing has to be installed there). Name `.carry` in the
# device tool's `carry` list; tools/gpu-common.sh points CMake at it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
c=$root/.carry
rm -rf "$c"; mkdir -p "$c/include" "$c/zstd/include" "$c/zstd/lib" "$c/zlib/include" "$c/zlib/lib"
cp -r /usr/src/googletest "$c/googletest"
# nlohmann-json in a folder of its own: a GPU machine whose system has another version finds
# that one, and must not meet this copy through the RapidJSON/CLI11 include path.
mkdir -p "$c/nlohmann/include"
cp -r /usr/include/nlohmann "$c/nlohmann/include/"
cp -r /usr/include/rapidjson "$c/include/"  # RapidJSON (header-only): the Chrome trace reader
cp -r /usr/include/CLI "$c/include/"  # CLI11 (header-only): pipescope-cli's option parsing
cp /usr/include/zstd.h /usr/include/zstd_errors.h /usr/include/zdict.h "$c/zstd/include/"
cp /usr/lib/x86_64-linux-gnu/libzstd.a "$c/zstd/lib/"
cp /usr/include/zlib.h /usr/include/x86_64-linux-gnu/zconf.h "$c/zlib/include/" 2>/dev/null ||
  cp /usr/include/zlib.h /usr/include/zconf.h "$c/zlib/include/"
cp /usr/lib/x86_64-linux-gnu/libz.a "$c/zlib/lib/"
# Google Benchmark is not needed there: the GPU bench is a plain program.
du -sh "$c"
