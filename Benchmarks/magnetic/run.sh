#!/usr/bin/env bash
# WMM2025: our Swift Geodesy against NOAA's wmm-calculator and pygeomag, on the same seeded points.
# Usage: Benchmarks/magnetic/run.sh [POINTS] [REPETITIONS]     (defaults 10000 and 7)
set -euo pipefail
. "$(dirname "$0")/../require.sh"
require_commands swift
require_venv
here="$(cd "$(dirname "$0")" && pwd)"
n="${1:-10000}"
reps="${2:-7}"
out="$here/out"
mkdir -p "$out"

if [ ! -x "$out/venv/bin/python" ]; then
    echo "== making a venv with wmm-calculator 1.4.4 and pygeomag 1.1.0"
    python3 -m venv "$out/venv"
    "$out/venv/bin/pip" install -q wmm-calculator==1.4.4 pygeomag==1.1.0 numpy
fi

echo "== generating $n seeded points"
python3 "$here/make_points.py" "$out/points.bin" "$n" 2025

echo "== building Swift benchmark (swift build -c release)"
swift build -c release --package-path "$here" --scratch-path "$here/.build" >"$out/swift-build.log" 2>&1 \
    || { cat "$out/swift-build.log"; exit 1; }
swiftbin="$(swift build -c release --package-path "$here" --scratch-path "$here/.build" --show-bin-path)"

echo "== Swift ($reps repetitions over all points; median)"
"$swiftbin/MagneticBench" "$out/points.bin" "$out/swift.bin" "$reps"
echo "== Python implementations and differences"
"$out/venv/bin/python" "$here/compare.py" "$out/points.bin" "$out/swift.bin" "$reps"
