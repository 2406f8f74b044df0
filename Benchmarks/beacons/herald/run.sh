#!/usr/bin/env bash
# Proximity classification on the Herald project's public RSSI-at-known-distances recording (README.md):
# builds the stand-in (../standin, the beacon modules alone) and ranges the committed sample on the recording's
# own timeline (beacon-range --fast), beside a naive single-reading path-loss baseline.
#   Benchmarks/beacons/herald/run.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
(cd "$here/../standin" && swift build -c release --product beacon-range >/dev/null)
exec python3 "$here/measure.py" "$here/../standin/.build/release/beacon-range" "$here/20210107-2241-B.sample.csv"
