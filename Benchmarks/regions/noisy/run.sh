#!/usr/bin/env bash
# Region crossings on noisy 5-second logger tracks: the current rule (evidence, decision 0019) side
# by side with the previous one (dwell, decision 0007), on the same fixes, in one run.
# Usage: Benchmarks/regions/noisy/run.sh   (from anywhere; prints a markdown table)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
cd "$root"
# The committed tracks must be what the generator makes (seeded, deterministic).
python3 "$here/make_tracks.py"
if ! git diff --quiet -- "$here/tracks"; then
    echo "make_tracks.py no longer reproduces the committed tracks (git diff $here/tracks)" >&2
    exit 1
fi
report="$(mktemp)"
trap 'rm -f "$report"' EXIT
# Counts, not timings: a debug build gives the same figures as a release one.
CORELOCATION_REGION_REPORT="$report" CORELOCATION_PROMPT=never \
    swift test --filter NoisyTrackRegionTests ${SCRATCH_PATH:+--scratch-path "$SCRATCH_PATH"} >&2
echo "| rule | accuracy the engine sees | flip-flops | crossings | on time (≤ 3 min) / reference | matching none | delay median / max, s |"
echo "|---|---|---|---|---|---|---|"
sort "$report"
