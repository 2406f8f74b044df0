#!/usr/bin/env bash
# Altitude: GNSS alone against barometric fusion, and floor counting, on seeded synthetic profiles.
# Usage: Benchmarks/altitude/run.sh [SEEDS]     (default 10)
set -euo pipefail
. "$(dirname "$0")/../require.sh"
require_commands swift
here="$(cd "$(dirname "$0")" && pwd)"
seeds="${1:-10}"
out="$here/out"
mkdir -p "$out"
echo "== building (swift build -c release)"
swift build -c release --package-path "$here" --scratch-path "$here/.build" >"$out/swift-build.log" 2>&1 \
    || { cat "$out/swift-build.log"; exit 1; }
bin="$(swift build -c release --package-path "$here" --scratch-path "$here/.build" --show-bin-path)"
echo "== $seeds seeds per profile"
"$bin/AltitudeBench" "$seeds"
