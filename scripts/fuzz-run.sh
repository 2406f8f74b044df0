#!/usr/bin/env bash
# Builds one libFuzzer target with the fuzzer and address sanitizers and runs it for a given time,
# seeded with the recorded NMEA fixtures (plus a few hand-made edge cases).
# Usage: scripts/fuzz-run.sh TARGET SECONDS      TARGET: nmea-parser | nmea-stream
# Crash inputs land in .build-fuzz/runs/TARGET/ (replay one with: swift run CoreLocationFuzzNMEAParser CRASHFILE).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
target="${1:-}"
seconds="${2:-60}"
case "$target" in
    nmea-parser) product=CoreLocationFuzzNMEAParser ;;
    nmea-stream) product=CoreLocationFuzzNMEAStream ;;
    *) echo "usage: $0 nmea-parser|nmea-stream SECONDS" >&2; exit 64 ;;
esac
work="$root/.build-fuzz/runs/$target"
corpus="$work/corpus"
mkdir -p "$corpus"

# Seeds: each fixture whole, each sentence on its own, and edge cases (the stream target's first
# byte picks the chunk size, so its seeds get one prepended).
seed() { if [ "$target" = nmea-stream ]; then printf '\007'; fi; cat; }
for file in "$root"/Tests/CoreLocationSourcesTests/Fixtures/nmea/*.nmea; do
    name="$(basename "$file" .nmea)"
    seed < "$file" > "$corpus/$name"
    grep '^\$' "$file" | head -40 | nl -ba | while read -r number line; do
        printf '%s\r\n' "$line" | seed > "$corpus/$name-$number"
    done
done
printf '$GPGGA,235959.99,8959.9999,N,17959.9999,W,8,99,99.9,99999,M,-199,M,,*00\r\n' | seed > "$corpus/edge-1"
printf '$GPRMC,000000,A,0000.0000,S,00000.0000,E,99999,359.99,290200,,,R,S*00\n$' | seed > "$corpus/edge-2"

echo "== building $product with -sanitize=fuzzer,address -DFUZZING (release)"
swift build -c release --package-path "$root" --scratch-path "$root/.build-fuzz" --product "$product" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING -Xswiftc -parse-as-library -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld >"$work/build.log" 2>&1 \
    || { tail -30 "$work/build.log"; exit 1; }
binary="$(swift build -c release --package-path "$root" --scratch-path "$root/.build-fuzz" --show-bin-path)/$product"

echo "== fuzzing $target for $seconds s"
cd "$work"
"$binary" -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 -artifact_prefix="$work/" \
    "$corpus" 2>&1 | tee "$work/run.log" | grep -E '^#[0-9]+ +(DONE|INITED)|stat::|ERROR|SUMMARY|crash-' || true
crashes=$(find "$work" -maxdepth 1 -name 'crash-*' -o -maxdepth 1 -name 'leak-*' -o -maxdepth 1 -name 'timeout-*' | wc -l)
echo "== $target: $(grep -m1 'stat::number_of_executed_units' "$work/run.log" | awk '{print $2}') executions, $crashes crash file(s) in $work"
