#!/usr/bin/env bash
# gpsd latency: feed NMEA into a real gpsd, measure when each epoch reaches a raw gpsd client (gpsd's
# own latency) and CLLocationManager's delegate (ours), in one run. Target: ours ≤ gpsd's + 5 ms.
# Usage: Benchmarks/gpsd-latency/run.sh [EPOCHS] [INTERVAL_MS]     (defaults 600 and 20)
set -euo pipefail
. "$(dirname "$0")/../require.sh"
require_commands swift
require_packages gpsd
mkdir -p "$(cd "$(dirname "$0")" && pwd)/out"
here="$(cd "$(dirname "$0")" && pwd)"
swift build -c release --package-path "$here" --scratch-path "$here/.build" >"$here/out/build.log" 2>&1 \
    || { tail -30 "$here/out/build.log"; exit 1; }
bin="$(swift build -c release --package-path "$here" --scratch-path "$here/.build" --show-bin-path)"
"$bin/GPSDLatency" "${1:-600}" "${2:-20}"
