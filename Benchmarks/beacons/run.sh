#!/usr/bin/env bash
# Beacon ranging: cadence, distance error, CPU and memory for 20 beacons at 10 Hz (README.md).
#   Benchmarks/beacons/run.sh [SECONDS] [--locationctl]   (default 120 s; the issue asks for 600)
# Default: the stand-in (standin/, the beacon modules alone, release); --locationctl: the release locationctl.
set -euo pipefail
. "$(dirname "$0")/../require.sh"
require_commands swift python3
root="$(cd "$(dirname "$0")/../.." && pwd)"
seconds="${1:-120}"
if [ "${2:-}" = --locationctl ]; then
    cd "$root"
    swift build -c release --product locationctl >/dev/null
    exec python3 Benchmarks/beacons/bench.py "$(swift build -c release --show-bin-path)/locationctl" --seconds "$seconds"
fi
# standin/Sources/: beacon-range (the stand-in) and committed relative links to the library's modules.
standin="$root/Benchmarks/beacons/standin"
(cd "$standin" && swift build -c release --product beacon-range >/dev/null)
python3 "$root/Benchmarks/beacons/bench.py" "$standin/.build/release/beacon-range" --standin --seconds "$seconds" \
    --loop-seconds 60 --monitor-seconds "${MONITOR_SECONDS:-282}"
