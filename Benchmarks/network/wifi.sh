#!/usr/bin/env bash
# Wi-Fi positioning end to end: fix error against the stand-in's truth and time from scan to fix, ours (locationctl,
# release build of the root package) and, with --geoclue, GeoClue 2 against the same stand-in and the same scans.
# Usage: Benchmarks/network/wifi.sh [--points 20] [--geoclue]
# Needs: dbus-daemon, python3-dbusmock (/usr/bin/python3), and for --geoclue geoclue-2.0.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
mkdir -p "$here/out"
echo "== building locationctl (release)"
swift build -c release --package-path "$root" --product locationctl >"$here/out/wifi-build.log" 2>&1 \
    || { tail -30 "$here/out/wifi-build.log"; exit 1; }
bin="$(swift build -c release --package-path "$root" --show-bin-path)"
cd "$here/wifi"
/usr/bin/python3 bench.py "$bin" --out "$here/out/wifi.json" "$@"
