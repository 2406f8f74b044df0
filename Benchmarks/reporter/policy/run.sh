#!/usr/bin/env bash
# Issue 35's reporter figures per half of Benchmarks/noise/split.txt: the bounded policy (a standalone release
# build of Sources/CoreLocationReporting/Policy, fed the points as `locationctl report --simulate FILE --speed
# max` feeds them) on the real tracks and the urban tracks, scored by halves.py with score.py's definitions.
#   Benchmarks/reporter/policy/run.sh [BASELINE_BIN]   # BASELINE_BIN: another ReportPolicyRun to compare
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
out="$here/out"
rm -rf "$out"
mkdir -p "$out"
swift build -c release --package-path "$here" --product ReportPolicyRun >&2
bin="$here/.build/release/ReportPolicyRun"
python3 "$root/Benchmarks/noise/synth.py" --gpx "$out/urban"
tracks=("$root"/Benchmarks/visits/tracks/*.gpx "$out"/urban/*.gpx)
"$bin" "$out/e10-off" 10 off "${tracks[@]}"
"$bin" "$out/e25-off" 25 off "${tracks[@]}"
"$bin" "$out/e10-f50" 10 50 "${tracks[@]}"
WANDER=off "$bin" "$out/e10-off-nowander" 10 off "${tracks[@]}"
WANDER=off "$bin" "$out/e25-off-nowander" 25 off "${tracks[@]}"
specs=("ε 10 m, freshness off=$out/e10-off:10" "ε 25 m, freshness off=$out/e25-off:25" "ε 10 m, freshness 50 m (default)=$out/e10-f50:10"
    "ε 10 m, freshness off, no wandering stays=$out/e10-off-nowander:10" "ε 25 m, freshness off, no wandering stays=$out/e25-off-nowander:25")
if [ -n "${1:-}" ]; then
    "$1" "$out/base-e10-off" 10 off "${tracks[@]}"
    "$1" "$out/base-e25-off" 25 off "${tracks[@]}"
    specs+=("before, ε 10 m, freshness off=$out/base-e10-off:10" "before, ε 25 m, freshness off=$out/base-e25-off:25")
fi
for half in reporting tuning; do
    python3 "$here/halves.py" "$half" "$out/urban" "${specs[@]}"
    echo
done
