#!/usr/bin/env bash
# GNSS-on time with automatic pausing against without, and with quiet monitoring against without, on the real recorded tracks with hand-labelled
# stays that the visits benchmark uses (Benchmarks/visits/tracks, Benchmarks/visits/labels).
# Usage: Benchmarks/energy/run.sh          Needs: swift, python3 (standard library only).
set -euo pipefail
. "$(dirname "$0")/../require.sh"
require_commands swift python3
here="$(cd "$(dirname "$0")" && pwd)"
visits="$here/../visits"
out="$here/out"
mkdir -p "$out"
swift build -c release --package-path "$here" --scratch-path "$here/.build" >"$out/swift-build.log" 2>&1 \
    || { cat "$out/swift-build.log"; exit 1; }
bin="$(swift build -c release --package-path "$here" --scratch-path "$here/.build" --show-bin-path)"
echo "Standard updates, automatic pausing off vs on:"
echo
echo "| track | activity | warm-up s | stopped | on-time without, s | with, s | saving | saving while stopped | pauses | stays heard on arrival | arrival delay s (median / max) | leaving delay s (median / max) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for gpx in "$visits"/tracks/*.gpx; do
    name="$(basename "$gpx" .gpx)"
    labels="$visits/labels/$name.json"
    [ -f "$labels" ] || { echo "no labels for $name, skipped" >&2; continue; }
    python3 "$here/gpx2csv.py" "$gpx" "$out/$name.csv" "$labels" "$out/$name-stays.csv"
    for activity in 1 3; do
        for warmup in 1 5; do
            "$bin/EnergyBench" "$out/$name.csv" "$out/$name-stays.csv" "$activity" "$warmup"
        done
    done
done
echo
echo "Visits and significant changes only, quiet monitoring off vs on:"
echo
echo "| track | warm-up s | on-time without, s | with, s | saving | saving while stopped | visits without / with | arrival shift s | departure shift s |"
echo "|---|---|---|---|---|---|---|---|---|"
for gpx in "$visits"/tracks/*.gpx; do
    name="$(basename "$gpx" .gpx)"
    [ -f "$out/$name-stays.csv" ] || continue
    for warmup in 1 5; do
        "$bin/EnergyBench" "$out/$name.csv" "$out/$name-stays.csv" monitoring "$warmup"
    done
done
