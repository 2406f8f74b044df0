#!/usr/bin/env bash
# Replay throughput and peak memory against input size: `locationctl track` replaying generated GPX
# and NMEA recordings as fast as possible (--speed max, CSV to /dev/null), beside gpsd's own decoder
# (`gpsdecode -j`) on the same NMEA file, in one run. Peak RSS is GNU time's %M (the child's
# ru_maxrss; GNU time forks, so no parent address space is counted); elapsed time from `date +%s%N`
# around it (GNU time's fork included on both sides). Medians of REPETITIONS runs.
# Usage: Benchmarks/replay/run.sh [SIZES] [REPETITIONS]   (defaults "10000 100000 1000000" and 3)
# Needs: swift, python3, gpsdecode (apt-get install gpsd-clients), GNU time (apt-get install time).
set -euo pipefail
. "$(dirname "$0")/../require.sh"
require_commands swift python3
require_packages gpsd-clients time libcurl4-openssl-dev
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
sizes="${1:-10000 100000 1000000}"
reps="${2:-3}"
out="$here/out"
scratch="${SCRATCH:-$root/.build}"   # SCRATCH=DIR keeps the release build apart from a debug one
mkdir -p "$out"

# Linked as packaging/build-deb.sh ships it (--static-swift-stdlib; needs libcurl4-openssl-dev), as
# Benchmarks/locationd does: the 10^4 row then times the start-up users get.
echo "== building locationctl (swift build -c release --static-swift-stdlib)" >&2
swift build -c release --static-swift-stdlib --package-path "$root" --scratch-path "$scratch" --product locationctl \
    >"$out/swift-build.log" 2>&1 || { cat "$out/swift-build.log"; exit 1; }
bin="$(swift build -c release --static-swift-stdlib --package-path "$root" --scratch-path "$scratch" --show-bin-path)/locationctl"

state="$(mktemp -d)"
trap 'rm -rf "$state"' EXIT
export CORELOCATION_PROMPT=never CORELOCATION_DATABASE="$state/x.sqlite" CORELOCATION_DEFAULT_POLICY=when-in-use

# measure N LABEL COMMAND... → "LABEL N fixes/s peakKiB" (medians over $reps runs)
measure() {
    local n="$1" label="$2"; shift 2
    local rates=() peaks=()
    for _ in $(seq "$reps"); do
        # Elapsed from the shell's clock in nanoseconds (GNU time's %e has 10 ms steps: too coarse at 10^4,
        # where both sides take about 0.1 s); GNU time for the peak resident memory only.
        local start end
        start="$(date +%s%N)"
        /usr/bin/time -o "$out/time.txt" -f "%M" "$@" >/dev/null </dev/null
        end="$(date +%s%N)"
        read -r kib <"$out/time.txt"
        rates+=("$(python3 -c "print(int($n / max(($end - $start) / 1e9, 1e-6)))")")
        peaks+=("$kib")
    done
    local rate peak
    rate="$(printf '%s\n' "${rates[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
    peak="$(printf '%s\n' "${peaks[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
    printf '%-22s %8s %10s %8s\n' "$label" "$n" "$rate" "$((peak / 1024))"
}

printf '%-22s %8s %10s %8s\n' "replay" "points" "fixes/s" "peakMiB"
for n in $sizes; do
    python3 "$here/make-nmea.py" "$n" >"$out/r$n.nmea"
    python3 "$here/make-gpx.py" "$n" >"$out/r$n.gpx"
    measure "$n" "locationctl nmea" "$bin" track --source "nmea:$out/r$n.nmea" --speed max --format csv
    measure "$n" "gpsdecode -j (peer)" sh -c "exec gpsdecode -j < '$out/r$n.nmea'"
    measure "$n" "locationctl gpx" "$bin" track --simulate "$out/r$n.gpx" --speed max --format csv
    rm -f "$out/r$n.nmea" "$out/r$n.gpx"
done
