#!/usr/bin/env bash
# locationd as GeoClue2 beside geoclue 2.6 itself, each in its own turn on one private bus, one NMEA feed (bench.py):
# time from the feed's write to LocationUpdated at N real GDBus clients, p50/p99, drops, memory per client; and in
# locationd's turn one Apple-API client on the same epochs. Release build, linked as packaging/build-deb.sh ships it.
# Usage: Benchmarks/geoclue/run.sh [--clients 1,8,64,1000] [--seconds 20] [--systems locationd,geoclue]
set -euo pipefail
. "$(dirname "$0")/../require.sh"
require_commands swift
require_packages geoclue-2.0 geoclue-2-demo python3-gi dbus libcurl4-openssl-dev
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
mkdir -p "$here/out"
for product in locationd locationctl; do
    swift build -c release --static-swift-stdlib --package-path "$root" --product "$product" >"$here/out/build.log" 2>&1 \
        || { tail -30 "$here/out/build.log"; exit 1; }
done
bin="$(swift build -c release --static-swift-stdlib --package-path "$root" --show-bin-path)"
ulimit -n 16384 2>/dev/null || true
# Debian's python3 (python3-gi is Debian's, not a virtual environment's).
/usr/bin/python3 "$here/bench.py" "$bin" --out "$here/out/result.json" "$@"
