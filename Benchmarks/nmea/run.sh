#!/usr/bin/env bash
# NMEA decoding throughput: our parser against gpsd's gpsdecode and pynmea2, on the same seeded log
# of 10^6 mixed sentences, in one run.
# Usage: Benchmarks/nmea/run.sh [SENTENCES] [REPETITIONS]     (defaults 1000000 and 5)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
n="${1:-1000000}"
reps="${2:-5}"
out="$here/out"
mkdir -p "$out"

command -v gpsdecode >/dev/null || {
    echo "gpsdecode not found. Install it with: sudo apt-get install -y gpsd-clients" >&2
    exit 1
}
for tool in python3 swift; do
    command -v "$tool" >/dev/null || { echo "missing $tool" >&2; exit 1; }
done
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

echo "== timing (medians)"
swift_lines="$("$swiftbin/NMEABench" "$out/log.nmea" "$reps")"
echo "$swift_lines"
gpsdecode_rate="$(python3 - "$out/log.nmea" "$n" "$reps" <<'PY'
import subprocess, sys, time
path, n, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rates = []
for _ in range(max(1, min(reps, 3))):
    with open(path, "rb") as f:
        start = time.perf_counter()
        subprocess.run(["gpsdecode"], stdin=f, stdout=subprocess.DEVNULL, check=True)
        rates.append(n / (time.perf_counter() - start))
rates.sort()
print(int(rates[len(rates) // 2]))
PY
)"
echo "gpsdecode $n sentences $gpsdecode_rate sentences/s (median of $(( reps < 3 ? reps : 3 )); decodes, assembles, prints JSON to /dev/null)"
pynmea2_line="$("$out/venv/bin/python" "$here/pynmea2_bench.py" "$out/log.nmea" 1)"
echo "$pynmea2_line"

parse_rate="$(echo "$swift_lines" | awk '/^swift-parse/ {print $4}')"
pipeline_rate="$(echo "$swift_lines" | awk '/^swift-pipeline/ {print $4}')"
pynmea2_rate="$(echo "$pynmea2_line" | awk '{print $4}')"
python3 -c "import sys; p, f, g, y = map(float, sys.argv[1:]); \
print('ratios: pipeline/gpsdecode %.1fx (target >= 2x)   parse/pynmea2 %.1fx (target >= 20x)' % (f / g, p / y))" \
    "$parse_rate" "$pipeline_rate" "$gpsdecode_rate" "$pynmea2_rate"
