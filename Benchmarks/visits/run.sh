#!/usr/bin/env bash
# Visits benchmark (issue 4): stays detected by trackintel and by our startMonitoringVisits() detector
# on four recorded GPX tracks, scored against hand labels. Prints a markdown table (also written to
# out/results/table.md).
#
#   Benchmarks/visits/run.sh                       # trackintel and locationctl
#   SKIP_LOCATIONCTL=1 Benchmarks/visits/run.sh    # trackintel only
#
# Environment: SCRATCH_PATH (passed to swift build as --scratch-path), SKIP_LOCATIONCTL=1.
# Needs python3 with venv and pip (PyPI), and Swift for our detector.
set -euo pipefail
. "$(dirname "$0")/../require.sh"
require_commands swift
require_venv
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$here/out"
results="$out/results"

"$here/fetch-tracks.sh" --check >/dev/null

if [ ! -x "$out/venv/bin/python" ]; then
    echo "== making a venv with trackintel 1.4.2" >&2
    python3 -m venv "$out/venv"
    "$out/venv/bin/pip" install -q trackintel==1.4.2
fi

rm -rf "$results"
mkdir -p "$results/trackintel" "$results/trackintel-gap60-last"
echo "== trackintel generate_staypoints (sliding, 100 m, 5 min)" >&2
for track in "$here"/tracks/*.gpx; do
    stem="$(basename "$track" .gpx)"
    # trackintel's defaults: gap_threshold=15 min, include_last=False
    (cd "$here" && "$out/venv/bin/python" run_trackintel.py "$track") >"$results/trackintel/$stem.jsonl"
    # sensitivity: gaps up to 60 min allowed, a stay still going on at the end kept
    (cd "$here" && "$out/venv/bin/python" run_trackintel.py "$track" --gap-threshold 60 --include-last) \
        >"$results/trackintel-gap60-last/$stem.jsonl"
done

if [ "${SKIP_LOCATIONCTL:-0}" != 1 ]; then
    # Same as `swift run -c release locationctl ...` from the repository root, without swift run's
    # per-call build check.
    swift_args=(-c release)
    if [ -n "${SCRATCH_PATH:-}" ]; then swift_args+=(--scratch-path "$SCRATCH_PATH"); fi
    echo "== building locationctl (swift build ${swift_args[*]})" >&2
    if (cd "$root" && swift build "${swift_args[@]}" --product locationctl) >"$out/swift-build.log" 2>&1; then
        bin="$(cd "$root" && swift build "${swift_args[@]}" --show-bin-path)/locationctl"
        mkdir -p "$results/locationctl"
        echo "== locationctl monitor --visits --simulate TRACK --speed max --format json" >&2
        for track in "$here"/tracks/*.gpx; do
            stem="$(basename "$track" .gpx)"
            if ! (cd "$root" && timeout 600 "$bin" monitor --visits --simulate "$track" --speed max --format json) \
                >"$results/locationctl/$stem.jsonl" 2>"$out/locationctl-$stem.stderr"; then
                echo "run.sh: 'locationctl monitor --visits' failed on $stem (first lines of its stderr below);" \
                    "skipping our detector" >&2
                head -n 5 "$out/locationctl-$stem.stderr" >&2
                rm -rf "$results/locationctl"
                break
            fi
            # Only used by score.py if the visit times are on the replay clock rather than the GPX's own
            # times: the first fix of a replay of the same track (a separate process, so this is off by
            # the time between the two replays' starts).
            (cd "$root" && "$bin" track --simulate "$track" --speed max --format json --limit 1 2>/dev/null) \
                | python3 -c 'import json, sys; print(json.loads(sys.stdin.readline())["timestamp"])' \
                >"$results/locationctl/$stem.replay-start" 2>/dev/null \
                || rm -f "$results/locationctl/$stem.replay-start"
        done
    else
        echo "run.sh: swift build failed (see $out/swift-build.log); skipping our detector" >&2
    fi
fi

(cd "$here" && python3 score.py --results "$results" --details) | tee "$results/table.md"

# Issue 35: the urban phone tracks of Benchmarks/noise (GPX written from its committed tracks), and the
# real tracks, scored per half of Benchmarks/noise/split.txt (the README shows the reporting half).
if [ "${SKIP_LOCATIONCTL:-0}" != 1 ] && [ -n "${bin:-}" ] && [ -x "$bin" ]; then
    urban="$out/urban"
    rm -rf "$urban"
    mkdir -p "$urban/results/locationctl"
    python3 "$here/../noise/synth.py" --gpx "$urban/tracks"
    echo "== locationctl monitor --visits on the urban tracks" >&2
    for track in "$urban"/tracks/*.gpx; do
        (cd "$root" && timeout 600 "$bin" monitor --visits --simulate "$track" --speed max --format json) \
            >"$urban/results/locationctl/$(basename "$track" .gpx).jsonl"
    done
    for half in reporting tuning; do
        echo
        echo "Issue 35, $half half: real tracks"
        (cd "$here" && python3 score.py --results "$results" --half "$half")
        echo
        echo "Issue 35, $half half: urban tracks"
        (cd "$here" && python3 score.py --results "$urban/results" --labels "$here/../noise/labels" \
            --tracks "$urban/tracks" --half "$half")
    done | tee "$urban/table.md"
fi
