#!/usr/bin/env bash
# Fusion: GNSS outages of 10, 30, 60 s on real tracks, the fusion filter against the last fix held, extrapolated and a
# constant-velocity Kalman filter (issue 40, decision 0095).
# Usage: Benchmarks/fusion/run.sh [reporting|tuning] [SEEDS]     (default: reporting, 3 seeds)
set -euo pipefail
. "$(dirname "$0")/../require.sh"
require_commands swift
here="$(cd "$(dirname "$0")" && pwd)"
half="${1:-reporting}"
seeds="${2:-3}"
out="$here/out"
mkdir -p "$out"
echo "== building (swift build -c release)"
swift build -c release --package-path "$here" --scratch-path "$here/.build" >"$out/swift-build.log" 2>&1 \
    || { cat "$out/swift-build.log"; exit 1; }
bin="$(swift build -c release --package-path "$here" --scratch-path "$here/.build" --show-bin-path)"
"$bin/FusionBench" "$here/../visits/tracks" "$here/split.txt" "$half" "$seeds" | tee "$out/$half.txt"
