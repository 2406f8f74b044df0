#!/usr/bin/env bash
# Fuzzes the gpsd JSON decoder (Sources/CoreLocationFuzzGPSDJSON) with libFuzzer for SECONDS (default 300).
# Seeds: every line of gpsd 3.22's recorded output plus a few hand-made objects. Crashes land in
# .build-fuzz/gpsd-json/ as crash-*; replay one with a plain build: `swift run CoreLocationFuzzGPSDJSON crash-…`.
# Usage: scripts/fuzz/gpsd-json.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${1:-300}"
work=".build-fuzz/gpsd-json"
mkdir -p "$work/corpus"

grep -v '^#' Tests/CoreLocationSourcesTests/Fixtures/gpsd/walk-gpsd-3.22.jsonl | awk -v dir="$work/corpus" '{ print > (dir "/seed-" NR) }'
printf '%s\n' '{"class":"TPV","mode":1}' > "$work/corpus/seed-nofix"
printf '%s\n' '{"class":"POLL","time":"2024-03-15T12:00:00.000Z","active":1,"tpv":[{"class":"TPV","mode":2,"lat":48.0,"lon":11.0}],"sky":[]}' > "$work/corpus/seed-poll"
printf '%s\n' '{"class":"ATT","heading":14.5,"pitch":1.0,"roll":-2.0}' '{"class":"ERROR","message":"x"}' > "$work/corpus/seed-att-error"

swift build -c release --scratch-path .build-fuzz/build -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING \
    --product CoreLocationFuzzGPSDJSON >"$work/build.log" 2>&1 || { tail -30 "$work/build.log"; exit 1; }
bin="$(swift build -c release --scratch-path .build-fuzz/build --show-bin-path)/CoreLocationFuzzGPSDJSON"
cd "$work"
"$bin" -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 corpus 2>&1 | tee fuzz.log | tail -25
