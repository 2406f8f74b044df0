#!/usr/bin/env bash
# Reporter benchmark (issue 12): every policy on the same recorded tracks with labelled stays
# (Benchmarks/visits/tracks and labels), scored by score.py beside the exact offline optimum; then the
# same on the seeded synthetic tracks that synth.py writes (a second table: stillness on dozens of stays).
#
#   Benchmarks/reporter/run.sh          # release build of locationctl, all runs, then the tables
#
# Environment: SCRATCH_PATH (passed to swift build as --scratch-path), CONFIG (release by default; nothing
# measured here is a time, so CONFIG=debug gives the same table). Needs python3 (standard library).
set -euo pipefail
. "$(dirname "$0")/../require.sh"
require_commands swift python3
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$here/out"
"$here/../visits/fetch-tracks.sh" --check >/dev/null

swift_args=(-c "${CONFIG:-release}")
if [ -n "${SCRATCH_PATH:-}" ]; then swift_args+=(--scratch-path "$SCRATCH_PATH"); fi
(cd "$root" && swift build "${swift_args[@]}" --product locationctl >&2)
bin="$(cd "$root" && swift build "${swift_args[@]}" --show-bin-path)/locationctl"

export CORELOCATION_PROMPT=never
export CORELOCATION_DATABASE="$(mktemp -d)/corelocation.sqlite"
rm -rf "$out"
declare -A configs=(
    [recipe]="--policy recipe"
    [bounded-e10-off]="--policy bounded --epsilon 10 --freshness off"
    [bounded-e10-f50]="--policy bounded --epsilon 10 --freshness 50"
    [bounded-e25-off]="--policy bounded --epsilon 25 --freshness off"
    [bounded-e25-f50]="--policy bounded --epsilon 25 --freshness 50"
    [bounded-e10-off-nowander]="--policy bounded --epsilon 10 --freshness off --no-wandering-stays"
)
python3 "$here/synth.py" "$out/synthetic-data"
# run DIRECTORY GPX...: every configuration on each track, into DIRECTORY/<config>/<track>.jsonl.
run() {
    local dir="$1" config gpx
    shift
    for config in "${!configs[@]}"; do
        mkdir -p "$dir/$config"
        for gpx in "$@"; do
            # shellcheck disable=SC2086
            "$bin" report --simulate "$gpx" --speed max --dry-run --format json ${configs[$config]} \
                >"$dir/$config/$(basename "$gpx" .gpx).jsonl"
        done
    done
}
run "$out" "$here"/../visits/tracks/{ExampleTrack,korita-zbevnica-timed,cerknicko-jezero,around-visnjan-with-car}.gpx
run "$out/synthetic" "$out"/synthetic-data/tracks/*.gpx
# Issue 35: the urban phone tracks of Benchmarks/noise (GPX written from its committed CSV tracks; the
# split into a tuning and a reporting half is Benchmarks/noise/split.txt).
mkdir -p "$out/urban-data"
python3 "$here/../noise/synth.py" --gpx "$out/urban-data/tracks"
cp -r "$here/../noise/labels" "$out/urban-data/labels"
run "$out/urban" "$out"/urban-data/tracks/*.gpx
python3 "$here/score.py" "$out" | tee "$out/table.md"
