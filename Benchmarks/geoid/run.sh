#!/usr/bin/env bash
# EGM96 geoid look-ups: our Swift Geodesy against PROJ (pyproj) with the same grid, on seeded points.
# Usage: Benchmarks/geoid/run.sh [POINTS] [REPETITIONS]     (defaults 1000000 and 7)
# Needs Debian's proj-data (/usr/share/proj/egm96_15.gtx).
set -euo pipefail
. "$(dirname "$0")/../require.sh"
require_commands swift
require_venv
require_packages proj-data
here="$(cd "$(dirname "$0")" && pwd)"
n="${1:-1000000}"
reps="${2:-7}"
gtx=/usr/share/proj/egm96_15.gtx
out="$here/out"
mkdir -p "$out"
if [ ! -x "$out/venv/bin/python" ]; then
    echo "== making a venv with pyproj"
    python3 -m venv "$out/venv"
    "$out/venv/bin/pip" install -q pyproj numpy
fi

echo "== generating $n seeded points (uniform in area, seed 96)"
"$out/venv/bin/python" - "$out/points.bin" "$n" <<'PY'
import sys, numpy as np
rng = np.random.default_rng(96)
n = int(sys.argv[2])
lat = np.degrees(np.arcsin(rng.uniform(-1, 1, n)))
lon = rng.uniform(-180, 180, n)
np.column_stack([lat, lon]).astype("<f8").tofile(sys.argv[1])
PY

echo "== building Swift benchmark (swift build -c release)"
swift build -c release --package-path "$here" --scratch-path "$here/.build" >"$out/swift-build.log" 2>&1 \
    || { cat "$out/swift-build.log"; exit 1; }
swiftbin="$(swift build -c release --package-path "$here" --scratch-path "$here/.build" --show-bin-path)"
echo "== Swift ($reps repetitions; median ns per look-up; first-use decode ms)"
"$swiftbin/GeoidBench" "$out/points.bin" "$out/swift.bin" "$reps"
echo "== PROJ and differences"
"$out/venv/bin/python" "$here/compare.py" "$out/points.bin" "$out/swift.bin" "$reps" "$gtx"
