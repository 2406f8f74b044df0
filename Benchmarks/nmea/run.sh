#!/usr/bin/env bash
# NMEA decoding: ours against gpsd's gpsdecode and pynmea2 on the same seeded log, in one run.
#  1. as processes, the same work: the log file in, one JSON line per fix out (ours: NMEADecode;
#     gpsd: gpsdecode -j), alternating, REPETITIONS each, medians; checks both wrote the same fixes;
#  2. in memory: our splitter + parser against pynmea2.parse (lazy fields) and pynmea2 with every
#     typed field read; our full pipeline to fixes, all with the same REPETITIONS (medians).
# Usage: Benchmarks/nmea/run.sh [SENTENCES] [REPETITIONS]     (defaults 1000000 and 5)
set -euo pipefail
. "$(dirname "$0")/../require.sh"
require_commands swift
require_venv
require_packages gpsd-clients
here="$(cd "$(dirname "$0")" && pwd)"
n="${1:-1000000}"
reps="${2:-5}"
out="$here/out"
mkdir -p "$out"

if [ ! -x "$out/venv/bin/python" ]; then
    echo "== installing pynmea2 into $out/venv"
    python3 -m venv "$out/venv"
    "$out/venv/bin/pip" install --quiet pynmea2
fi

echo "== generating $n seeded sentences"
python3 "$here/make_log.py" "$out/log.nmea" "$n" 42
ls -l "$out/log.nmea" | awk '{print "   " $5 " bytes"}'

echo "== building Swift benchmark (swift build -c release)"
swift build -c release --package-path "$here" --scratch-path "$here/.build" >"$out/swift-build.log" 2>&1 \
    || { cat "$out/swift-build.log"; exit 1; }
swiftbin="$(swift build -c release --package-path "$here" --scratch-path "$here/.build" --show-bin-path)"

echo "== processes: log in, JSON lines of fixes out (median of $reps, alternating)"
process_lines="$(python3 "$here/processes.py" "$out/log.nmea" "$n" "$reps" "$out" "$swiftbin/NMEADecode")"
echo "$process_lines"
echo "== in memory (median of $reps each)"
swift_lines="$("$swiftbin/NMEABench" "$out/log.nmea" "$reps")"
echo "$swift_lines"
pynmea2_line="$("$out/venv/bin/python" "$here/pynmea2_bench.py" "$out/log.nmea" "$reps")"
echo "$pynmea2_line"
typed_line="$("$out/venv/bin/python" "$here/pynmea2_bench.py" "$out/log.nmea" "$reps" --typed)"
echo "$typed_line"

rate() { echo "$1" | awk -v k="$2" '$1 == k {print $5}'; }
python3 - "$(rate "$process_lines" swift-decode)" "$(rate "$process_lines" gpsdecode)" \
    "$(echo "$swift_lines" | awk '/^swift-parse/ {print $4}')" "$(echo "$pynmea2_line" | awk '{print $4}')" \
    "$(echo "$typed_line" | awk '{print $4}')" <<'PY'
import sys
ours, gpsd, parse, lazy, typed = map(float, sys.argv[1:])
print(f"RESULT nmea: process (file in, fixes as JSON out) {ours / gpsd:.1f}x gpsdecode (target >= 2x); "
      f"in-memory parse {parse / lazy:.1f}x pynmea2 lazy, {parse / typed:.1f}x pynmea2 typed (target >= 20x)")
PY
