#!/usr/bin/env bash
# locationd against gpsd 3.22, side by side in one run: fan-out latency and drops for N clients at
# 10 Hz, decision propagation, cost (README.md). Release build of the root package's locationd and
# locationctl, linked as packaging/build-deb.sh ships them (--static-swift-stdlib: the Swift runtime and
# Foundation linked in, so `locationctl status` is timed as users run it, without ~20 ms of loading
# libFoundation.so and its relocations; the static link needs libcurl4-openssl-dev: Foundation's URLSession
# links libcurl); the driver is bench.py (Python 3, standard library only).
# Usage: Benchmarks/locationd/run.sh [--seconds 60] [--clients 8,64,256,1000] [--trials 1000]
set -euo pipefail
. "$(dirname "$0")/../require.sh"
require_commands swift python3
require_packages gpsd libcurl4-openssl-dev
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
mkdir -p "$here/out"
for product in locationd locationctl; do
    swift build -c release --static-swift-stdlib --package-path "$root" --product "$product" >"$here/out/build.log" 2>&1 \
        || { tail -30 "$here/out/build.log"; exit 1; }
done
bin="$(swift build -c release --static-swift-stdlib --package-path "$root" --show-bin-path)"
ulimit -n 8192 2>/dev/null || true
PATH="/usr/sbin:$PATH" python3 "$here/bench.py" "$bin" --out "$here/out/result.json" "$@"
