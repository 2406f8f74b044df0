#!/usr/bin/env bash
# Fuzzes the GPX parser (Sources/CoreLocationFuzzGPX) with libFuzzer for SECONDS (default 300), or RUNS
# executions when a second argument is given. Seeds: the committed corpus .fuzz/corpus/gpx/. Crashes land
# in .build-fuzz/gpx/ as crash-*; replay one with a plain build: `swift run CoreLocationFuzzGPX crash-…`.
# Usage: scripts/fuzz/gpx.sh [SECONDS] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${1:-300}"
runs="${2:--1}"
work=".build-fuzz/gpx"
mkdir -p "$work/corpus"
cp .fuzz/corpus/gpx/* "$work/corpus/"

swift build -c release --scratch-path .build-fuzz/build -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING \
    -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld --product CoreLocationFuzzGPX >"$work/build.log" 2>&1 || { tail -30 "$work/build.log"; exit 1; }
bin="$(swift build -c release --scratch-path .build-fuzz/build --show-bin-path)/CoreLocationFuzzGPX"
cd "$work"
# -detect_leaks=0: FoundationXML/libxml2 leaks 72 bytes once per process (found at the 5th input).
"$bin" -detect_leaks=0 -max_total_time="$seconds" -runs="$runs" -max_len=8192 -print_final_stats=1 -artifact_prefix="$PWD/" corpus \
    2>&1 | tee fuzz.log | tail -25
