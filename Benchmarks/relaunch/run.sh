#!/usr/bin/env bash
# Relaunch latency (issue 11): a region crossing for a killed app → the app running again → the
# event in its delegate, p50/p95, and events lost or duplicated over N kills (README.md).
# Release build of locationd, locationctl and CoreLocationAppProbe; driver bench.py (Python 3,
# standard library only). No peer runs on Linux: Apple's and Android's figures are quoted in README.
# Usage: Benchmarks/relaunch/run.sh [--events 1000]
#        Benchmarks/relaunch/run.sh --daemon-kills [--events 1000 --seed 37 ...]   (locationd SIGKILLed and
#        restarted at seeded random moments; lost/duplicated events and reconnect p50/p99: daemon_kill.py;
#        add --socket-activation to start it as the units do, through systemd-socket-activate)
set -euo pipefail
. "$(dirname "$0")/../require.sh"
require_commands swift python3
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
mkdir -p "$here/out"
for product in locationd locationctl CoreLocationAppProbe; do
    swift build -c release --package-path "$root" --product "$product" >"$here/out/build.log" 2>&1 \
        || { tail -30 "$here/out/build.log"; exit 1; }
done
bin="$(swift build -c release --package-path "$root" --show-bin-path)"
if [ "${1:-}" = "--daemon-kills" ]; then
    shift
    python3 "$here/daemon_kill.py" "$bin" --out "$here/out/daemon-kill.json" "$@"
else
    python3 "$here/bench.py" "$bin" --out "$here/out/result.json" "$@"
fi
