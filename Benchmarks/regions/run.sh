#!/usr/bin/env bash
# Region look-up: CircleIndex (Swift) vs shapely STRtree (GEOS) vs brute force, 10^3, 10^5, 10^6 circles.
# Usage: Benchmarks/regions/run.sh [POINTS] (default 100000)     Needs: python3 with numpy and shapely.
# RUNS (environment, default 3): runs per size, so a noisy machine shows as a range.
# Each run times the headline point set (points: 90 % uniform, 10 % near circles) and, reported
# separately as set=track, a random walk of 1 s fixes.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
m="${1:-100000}"
runs="${RUNS:-3}"
out="$here/out"
mkdir -p "$out"
python3 -c "import numpy, shapely" 2>/dev/null || { echo "needs numpy and shapely: pip install shapely" >&2; exit 1; }
swift build -c release --package-path "$here" --scratch-path "$here/.build" >"$out/swift-build.log" 2>&1 \
    || { cat "$out/swift-build.log"; exit 1; }
bin="$(swift build -c release --package-path "$here" --scratch-path "$here/.build" --show-bin-path)"
for n in 1000 100000 1000000; do
    python3 "$here/make_data.py" "$out" "$n" "$m" 42
    for _ in $(seq "$runs"); do
        "$bin/RegionsBench" "$out" "$n" 1000 points
        "$bin/RegionsBench" "$out" "$n" 1000 track
    done
    for _ in $(seq "$runs"); do
        python3 "$here/strtree.py" "$out" "$n" 20000 points track
    done
done
