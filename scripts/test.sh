#!/usr/bin/env bash
# The project's test command: the whole suite, in two test processes, one after the other.
#
# Why two: Swift tasks, DispatchQueue.global and Foundation's process-exit handlers share one pool of
# threads, as wide as the machine has cores. The unit tests are CPU-bound (simulated clocks, property
# tests, geocoding against brute force) and hold every thread of that pool for tens of seconds at a
# time; the system tests (real locationd, gpsd, dbus-daemon, apps and tools as processes) wait on the
# wall clock and need a thread the moment a process exits or a socket answers. In one process the
# first starve the second: on 2 cores, waits of 30 s and more ran out while no thread was free
# (docs/decisions/0040-two-test-processes.md).
#
#   bash scripts/test.sh              both processes; fails if either fails
#   bash scripts/test.sh ARGS…        one `swift test ARGS…` (e.g. --filter SomeSuite)
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -gt 0 ]; then
    exec swift test "$@"
fi

# Targets whose tests run processes, buses or servers and wait for them on the wall clock.
system='^(LocationdTests|LocationctlTests|GPSDIntegrationTests|CoreLocationDBusTests|CoreLocationBeaconsTests|CoreLocationNetworkTests|CoreLocationCellularTests|CoreLocationReportingTests)\.'

swift build --build-tests
status=0
echo "== unit tests (in-process, CPU-bound)"
swift test --skip-build --skip "$system" || status=1
echo "== system tests (real processes, buses and servers)"
swift test --skip-build --filter "$system" || status=1
exit $status
