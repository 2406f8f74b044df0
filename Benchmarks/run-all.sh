#!/usr/bin/env bash
# Runs every benchmark in turn and prints the README's benchmark table, headed by the date, the
# machine and the commit; exits non-zero if any benchmark fails (the others still run).
#
#   Benchmarks/run-all.sh                 # cheap mode: smaller inputs, fewer repetitions (2-core machine)
#   Benchmarks/run-all.sh --long          # the sizes the benchmark READMEs report (much longer)
#   Benchmarks/run-all.sh nmea regions    # only these (either mode)
#
# Each benchmark's full output goes to Benchmarks/out/run-all/NAME.log; the table takes its summary
# lines. Benchmarks run one at a time (never in parallel): they time things, and on a shared machine
# the ratios measured side by side within one benchmark are the figures to compare, not the absolutes.
# Needs what each benchmark needs (see its README): swift, python3 with venv/pip (PyPI), a C++ compiler
# and GeographicLib for geodesic, gpsd and gpsd-clients (gpsdecode), proj-data for geoid.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
mode=cheap
if [ "${1:-}" = "--long" ]; then mode=long; shift; fi
all=(geodesic nmea gpsd-latency magnetic geoid regions visits energy geocoding)
if [ "$#" -gt 0 ]; then names=("$@"); else names=("${all[@]}"); fi
logs="$here/out/run-all"
mkdir -p "$logs"

# The arguments (and environment) of each benchmark in each mode.
command_for() {
    local name="$1"
    if [ "$mode" = long ]; then
        case "$name" in
            regions) echo "RUNS=3 SIZES='1000 100000 1000000' $here/regions/run.sh 100000" ;;
            gpsd-latency) echo "$here/gpsd-latency/run.sh 2000 20" ;;
            *) echo "$here/$name/run.sh" ;;
        esac
    else
        case "$name" in
            geodesic) echo "$here/geodesic/run.sh 200000 3" ;;
            nmea) echo "$here/nmea/run.sh 200000 3" ;;
            gpsd-latency) echo "$here/gpsd-latency/run.sh 600 20" ;;
            magnetic) echo "$here/magnetic/run.sh 10000 3" ;;
            geoid) echo "$here/geoid/run.sh 200000 3" ;;
            regions) echo "RUNS=1 SIZES='1000 100000' $here/regions/run.sh 100000" ;;
            geocoding) echo "$here/geocoding/run.sh 30000 3" ;;
            *) echo "$here/$name/run.sh" ;;
        esac
    fi
}

# The lines of a benchmark's output that make its row of the table.
summary_of() {
    local name="$1" log="$2"
    case "$name" in
        geodesic) grep -E "ratio Swift/C|max \|diff\|" "$log" ;;
        nmea | geocoding | regions) grep "^RESULT" "$log" | sed 's/^RESULT [a-z]* *//' ;;
        gpsd-latency) grep -E "^(feed|our extra)" "$log" ;;
        magnetic) grep -E "ns/eval|max \|" "$log" | head -6 ;;
        geoid) grep -E "ns|max \|Swift" "$log" | grep -v "^==" | head -3 ;;
        visits) grep -E "^\| *(ours|trackintel|locationctl)" "$log" | head -4 ;;
        energy) grep -E "^\| " "$log" | grep -v -- "---" | grep -v "track |" | head -4 ;;
        *) tail -3 "$log" ;;
    esac
}

cpu="$(grep -m1 "model name" /proc/cpuinfo 2>/dev/null | sed 's/.*: //')"
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
commit="$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [ -n "$(git -C "$here" status --porcelain 2>/dev/null)" ]; then commit="$commit (with local changes)"; fi
started="$(date -u '+%Y-%m-%d %H:%M UTC')"

rows=()
failed=()
for name in "${names[@]}"; do
    [ -x "$here/$name/run.sh" ] || { echo "no benchmark $name" >&2; failed+=("$name"); continue; }
    command="$(command_for "$name")"
    log="$logs/$name.log"
    echo "== $name ($mode): $command" >&2
    start=$SECONDS
    if (cd "$here/.." && eval "$command") >"$log" 2>&1; then status=ok; else status=FAILED; failed+=("$name"); fi
    seconds=$((SECONDS - start))
    result="$(summary_of "$name" "$log" | sed 's/|/\\|/g' | tr -s ' ' | paste -sd ';' | sed 's/;/; /g')"
    [ "$status" = ok ] || result="see $log: $(tail -2 "$log" | tr '\n' ' ' | cut -c1-200)"
    echo "   $status in ${seconds} s" >&2
    rows+=("| \`Benchmarks/$name/run.sh\` | $mode | $status | $seconds | $result |")
done

echo
echo "Benchmarks, $started, commit $commit, $mode mode (\`Benchmarks/run-all.sh$([ "$mode" = long ] && echo " --long")\`)."
echo "Machine: $(uname -m), $(nproc) cores${cpu:+ ($cpu)}, $(free -g 2>/dev/null | awk '/Mem:/ {print $2 " GiB"}'),"
echo "load average $load_before at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end; $(swift --version 2>/dev/null | head -1)."
echo
echo "| benchmark | mode | status | seconds | result (ratios are from one run, side by side) |"
echo "| --- | --- | --- | ---: | --- |"
printf '%s\n' "${rows[@]}"
if [ "${#failed[@]}" -gt 0 ]; then
    echo
    echo "FAILED: ${failed[*]}" >&2
    exit 1
fi
