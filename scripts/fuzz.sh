#!/usr/bin/env bash
# Fuzzes the libFuzzer targets (Sources/CoreLocationFuzz*) one after the other, each from its committed
# corpus (.fuzz/corpus/TARGET/), with the fuzzer and address sanitizers (release build, lld).
#
#   scripts/fuzz.sh [TARGET…] [--seconds N] [--runs N] [--seed N] [--merge]
#     TARGET     nmea-parser | nmea-stream | gpsd-json | gpx | beacon-frames | dbus-message | maxmind | daemon-frames |
#                modem-3gpp | cell-csv (default: all ten, in that order)
#     --seconds  stop each target after N seconds (default 60)
#     --runs     stop each target after N executions instead (e.g. 10000000); the time limit is lifted
#     --seed     libFuzzer's random seed (default: a new one each run). With --runs, a run is reproducible:
#                the same code and corpus make the same inputs, so CI fails only when the code changed
#     --merge    afterwards, merge what was found into the committed corpus, minimized (-merge=1)
#
# Runs at `nice -n 19` (FUZZ_NICE=N: another niceness, for a long run beside builds that would starve it).
# Exits 1 when any target crashes, leaks or times out; the input is left in
# .build-fuzz/runs/TARGET/ (replay it with a plain build: `swift run CoreLocationFuzzGPX FILE`). Prints one
# line per target: executions, exec/s, corpus size (docs/decisions/0021 has the long runs' figures).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
seconds=60 runs="" seed="" merge=0 targets=()
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        --merge) merge=1; shift ;;
        nmea-parser|nmea-stream|gpsd-json|gpx|beacon-frames|dbus-message|maxmind|daemon-frames|modem-3gpp|cell-csv) targets+=("$1"); shift ;;
        *) echo "usage: $0 [nmea-parser|nmea-stream|gpsd-json|gpx|beacon-frames|dbus-message|maxmind|daemon-frames|modem-3gpp|cell-csv]… [--seconds N] [--runs N] [--seed N] [--merge]" >&2; exit 64 ;;
    esac
done
[ ${#targets[@]} -gt 0 ] || targets=(nmea-parser nmea-stream gpsd-json gpx beacon-frames dbus-message maxmind daemon-frames modem-3gpp cell-csv)
niceness="${FUZZ_NICE:-19}"

product() {
    case "$1" in
        nmea-parser) echo CoreLocationFuzzNMEAParser ;;
        nmea-stream) echo CoreLocationFuzzNMEAStream ;;
        gpsd-json) echo CoreLocationFuzzGPSDJSON ;;
        gpx) echo CoreLocationFuzzGPX ;;
        beacon-frames) echo CoreLocationFuzzBeaconFrames ;;
        dbus-message) echo CoreLocationFuzzDBusMessage ;;
        maxmind) echo CoreLocationFuzzMaxMind ;;
        daemon-frames) echo CoreLocationFuzzDaemonFrames ;;
        modem-3gpp) echo CoreLocationFuzzModem3GPP ;;
        cell-csv) echo CoreLocationFuzzCellCSV ;;
    esac
}
# Per target: the largest input, and libFuzzer options. 1 KiB holds a dozen NMEA sentences (several
# epochs) or a gpsd report: longer inputs only cost time. GPX: FoundationXML leaks a CFString per XML
# error (`_CFErrorCreateFromXMLInterface`) and libxml2 72 bytes per process, so leak detection is off
# there, per input and at exit (ASAN_OPTIONS below). MaxMind: a whole database file, whose metadata is at its end,
# so the limit must hold the seeds whole (MaxMind's City test database is 22.5 KiB).
options() {
    case "$1" in
        gpx) echo "-max_len=4096 -detect_leaks=0" ;;
        # D-Bus: the seeds are whole messages of up to ~400 bytes; 2 KiB leaves room for two or three in a row.
        dbus-message) echo "-max_len=2048" ;;
        maxmind) echo "-max_len=24576" ;;
        # A 3GPP string is at most 5 fields of 15 characters; 256 bytes leave room for padding and Unicode.
        modem-3gpp) echo "-max_len=256" ;;
        *) echo "-max_len=1024" ;;
    esac
}

scratch="$root/.build-fuzz/build"
flags=(-c release --scratch-path "$scratch" -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING
    -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld)
mkdir -p "$root/.build-fuzz/runs"
bin="$(swift build "${flags[@]}" --show-bin-path)"
status=0
for target in "${targets[@]}"; do
    name="$(product "$target")"
    work="$root/.build-fuzz/runs/$target"
    rm -rf "$work" && mkdir -p "$work/corpus"
    echo "== $target: building $name"
    nice -n "$niceness" swift build "${flags[@]}" --product "$name" >"$work/build.log" 2>&1 || { tail -30 "$work/build.log"; exit 1; }
    cp "$root/.fuzz/corpus/$target/"* "$work/corpus/"
    limit=(-max_total_time="$seconds")
    [ -z "$runs" ] || limit=(-runs="$runs")
    [ -z "$seed" ] || limit+=(-seed="$seed")
    # shellcheck disable=SC2046
    leaks=1
    [ "$target" != gpx ] || leaks=0
    (cd "$work" && ASAN_OPTIONS="detect_leaks=$leaks" nice -n "$niceness" "$bin/$name" $(options "$target") "${limit[@]}" -print_final_stats=1 \
        -artifact_prefix="$work/" corpus >"$work/fuzz.log" 2>&1) || true
    executions="$(awk '/stat::number_of_executed_units/ {print $2}' "$work/fuzz.log")"
    rate="$(awk '/stat::average_exec_per_sec/ {print $2}' "$work/fuzz.log")"
    found="$(find "$work" -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)"
    echo "== $target: ${executions:-?} executions, ${rate:-?} exec/s, $(ls "$work/corpus" | wc -l) corpus files, $found failure(s)"
    if [ "$found" -gt 0 ] || ! grep -q 'stat::number_of_executed_units' "$work/fuzz.log"; then
        grep -E 'ERROR|SUMMARY|Fatal error|Precondition|artifact' "$work/fuzz.log" | head -10 >&2
        status=1
        continue
    fi
    if [ "$merge" = 1 ]; then
        merged="$work/merged"
        mkdir -p "$merged"
        (cd "$work" && ASAN_OPTIONS="detect_leaks=$leaks" nice -n "$niceness" "$bin/$name" $(options "$target") -merge=1 \
            "$merged" "$root/.fuzz/corpus/$target" \
            corpus >"$work/merge.log" 2>&1)
        rm -f "$root/.fuzz/corpus/$target/"*
        cp "$merged/"* "$root/.fuzz/corpus/$target/"
        echo "== $target: corpus merged: $(ls "$root/.fuzz/corpus/$target" | wc -l) files," \
            "$(du -sk "$root/.fuzz/corpus/$target" | cut -f1) KB"
    fi
done
exit "$status"
