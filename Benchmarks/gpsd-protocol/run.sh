#!/usr/bin/env bash
# locationd's gpsd front door against gpsd 3.22, side by side in one run (issue 39): latency from the feed's write
# to a TPV at N raw gpsd-protocol clients, CPU per report, memory per client (bench.py; it reuses
# Benchmarks/locationd/bench.py's feed and clients). Release build of locationd; Python 3, standard library only.
# Usage: Benchmarks/gpsd-protocol/run.sh [--seconds 30] [--clients 8,64,1000] [--rounds 2]
set -euo pipefail
. "$(dirname "$0")/../require.sh"
require_commands swift python3
require_packages gpsd
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
mkdir -p "$here/out"
swift build -c release --package-path "$root" --product locationd >"$here/out/build.log" 2>&1 \
    || { tail -30 "$here/out/build.log"; exit 1; }
bin="$(swift build -c release --package-path "$root" --show-bin-path)"
ulimit -n 8192 2>/dev/null || true
PATH="/usr/sbin:$PATH" python3 "$here/bench.py" "$bin" --out "$here/out/result.json" "$@"
