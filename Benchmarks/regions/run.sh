#!/usr/bin/env bash
# Region look-up: CircleIndex (Swift) vs shapely STRtree (GEOS) vs brute force, on the same points.
# Usage: Benchmarks/regions/run.sh [POINTS] (default 100000)
# Environment: RUNS (default 3) runs per size, so a noisy machine shows as a range; SIZES (default
# "1000 100000 1000000") circle counts. shapely and numpy come from PyPI into $here/.venv (once).
# Each run times the headline point set (points: 90 % uniform, 10 % near circles) and, reported
# separately as set=track, a random walk of 1 s fixes; every point is queried on both sides, and
# every one of our answers is checked against a scan without the index.
set -euo pipefail
. "$(dirname "$0")/../require.sh"
require_commands swift
require_venv
here="$(cd "$(dirname "$0")" && pwd)"
m="${1:-100000}"
runs="${RUNS:-3}"
sizes="${SIZES:-1000 100000 1000000}"
out="$here/out"
venv="$here/.venv"
mkdir -p "$out"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q shapely numpy
fi
py="$venv/bin/python"
swift build -c release --package-path "$here" --scratch-path "$here/.build" >"$out/swift-build.log" 2>&1 \
    || { cat "$out/swift-build.log"; exit 1; }
bin="$(swift build -c release --package-path "$here" --scratch-path "$here/.build" --show-bin-path)"
for n in $sizes; do
    "$py" "$here/make_data.py" "$out" "$n" "$m" 42
    for _ in $(seq "$runs"); do
        "$bin/RegionsBench" "$out" "$n" 1000 points
        "$bin/RegionsBench" "$out" "$n" 1000 track
        "$py" "$here/strtree.py" "$out" "$n" 0 points track
    done
done | tee "$out/results.txt"
# Any answer that differs from the scan fails the run.
if grep -q "mismatches_all=[1-9]\|brute_mismatches=[1-9]" "$out/results.txt"; then
    echo "CircleIndex answers differ from the brute-force scan" >&2
    exit 1
fi
"$py" - "$out/results.txt" <<'PY'
import re, statistics, sys
rows = [dict(re.findall(r"(\w+)=(\S+)", line)) | {"who": line.split()[0]} for line in open(sys.argv[1])]
for n in sorted({int(r["n"]) for r in rows}):
    ours = [r for r in rows if r["who"] == "swift-circleindex" and int(r["n"]) == n and r["set"] == "points"]
    geos = [r for r in rows if r["who"] == "shapely-strtree" and int(r["n"]) == n and r["set"] == "points"]
    med = lambda rs, k: statistics.median(float(r[k]) for r in rs)
    print(f"RESULT regions n={n}: single median {med(ours, 'median_ns'):.0f} ns, bulk CPU "
          f"{med(ours, 'bulk_cpu_ns_per_point'):.0f} ns/point vs STRtree bulk CPU {med(geos, 'bulk_cpu_ns'):.0f} "
          f"({med(geos, 'bulk_cpu_ns') / med(ours, 'bulk_cpu_ns_per_point'):.1f}x), wall {med(ours, 'bulk_ns_per_point'):.0f} "
          f"vs {med(geos, 'bulk_mean_ns'):.0f} ({med(geos, 'bulk_mean_ns') / med(ours, 'bulk_ns_per_point'):.1f}x); resident growth "
          f"{med(ours, 'bytes_per_circle_rss'):.0f} B/circle vs {med(geos, 'bytes_per_circle'):.0f}; "
          f"{sum(int(r['checked_all']) for r in ours)} answers checked, "
          f"{sum(int(r['mismatches_all']) for r in ours)} wrong")
PY
