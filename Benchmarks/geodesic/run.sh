#!/usr/bin/env bash
# Geodesic inverse: our Swift Geodesy module against GeographicLib C++, on the same 10^6 seeded pairs.
# Usage: Benchmarks/geodesic/run.sh [PAIRS] [REPETITIONS]     (defaults 1000000 and 7)
set -euo pipefail
. "$(dirname "$0")/../require.sh"
require_commands swift python3 g++
require_packages libgeographiclib-dev
here="$(cd "$(dirname "$0")" && pwd)"
n="${1:-1000000}"
reps="${2:-7}"
out="$here/out"
mkdir -p "$out"

echo "== generating $n seeded pairs"
python3 "$here/make_pairs.py" "$out/pairs.bin" "$n" 42

echo "== building GeographicLib C++ benchmark (g++ -O2)"
g++ -O2 -std=c++17 -o "$out/geodesic-bench-cpp" "$here/cpp/bench.cpp" -lGeographicLib

echo "== building Swift benchmark (swift build -c release)"
swift build -c release --package-path "$here" --scratch-path "$here/.build" >"$out/swift-build.log" 2>&1 \
    || { cat "$out/swift-build.log"; exit 1; }
swiftbin="$(swift build -c release --package-path "$here" --scratch-path "$here/.build" --show-bin-path)"

echo "== timing ($reps repetitions of the loop over all pairs; median reported)"
cpp_line="$("$out/geodesic-bench-cpp" "$out/pairs.bin" "$out/cpp.bin" "$reps")"
swift_line="$("$swiftbin/GeodesicBench" "$out/pairs.bin" "$out/swift.bin" "$reps")"
echo "$cpp_line"
echo "$swift_line"

echo "== accuracy (Swift distance - GeographicLib distance)"
python3 "$here/compare.py" "$out/swift.bin" "$out/cpp.bin"

cpp_ns="$(echo "$cpp_line" | awk '{print $3}')"
swift_ns="$(echo "$swift_line" | awk '{print $3}')"
python3 -c "import sys; c, s = float(sys.argv[1]), float(sys.argv[2]); \
print('C++ %.1f ns/call   Swift %.1f ns/call   ratio Swift/C++ %.3f' % (c, s, s / c))" "$cpp_ns" "$swift_ns"
