#!/usr/bin/env bash
# Region crossings on noisy tracks, both halves of Benchmarks/noise/split.txt (issue 35, decision 0062):
# the current rule (sustained) side by side with decision 0019's (evidence), on the same fixes, in one run.
# Then, as before, NoisyTrackRegionTests' table of the three real tracks with logger noise (0019's fixture).
# Usage: Benchmarks/regions/noisy/run.sh   (from anywhere; prints markdown tables)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
cd "$root"
# The committed tracks must be what the generators make (seeded, deterministic).
python3 "$here/make_tracks.py"
python3 "$root/Benchmarks/noise/synth.py"
if ! git diff --quiet -- "$here/tracks" "$root/Benchmarks/noise/tracks"; then
    echo "make_tracks.py or synth.py no longer reproduce the committed tracks (git diff)" >&2
    exit 1
fi
# Counts, not timings; the scorer is a standalone release build (two library modules, a minute).
swift build -c release --package-path "$here" --product UrbanRegions >&2
"$here/.build/release/UrbanRegions" "$root"
echo
report="$(mktemp)"
trap 'rm -f "$report"' EXIT
CORELOCATION_REGION_REPORT="$report" CORELOCATION_PROMPT=never \
    swift test --filter NoisyTrackRegionTests ${SCRATCH_PATH:+--scratch-path "$SCRATCH_PATH"} >&2
echo "| rule | accuracy the engine sees | flip-flops | crossings | on time (≤ 3 min) / reference | matching none | delay median / max, s |"
echo "|---|---|---|---|---|---|---|"
sort "$report"
