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

# The benchmarks, in the order they run. One line each: NAME ; CHEAP ; LONG ; SUMMARY
#   NAME     its directory under Benchmarks/ (a sub-directory such as regions/noisy works too); it runs
#            NAME/run.sh. A listed benchmark whose run.sh does not exist yet is reported as skipped.
#   CHEAP    how cheap mode runs it, LONG how --long does: `@` stands for NAME/run.sh, with the
#            environment before it and the arguments after; empty means `@` alone (its defaults).
#   SUMMARY  the lines of its output that make its row (grep -E); empty means its last 3 lines.
# A Benchmarks/*/run.sh that is not listed still runs (with its defaults, after the listed ones), so a
# new benchmark is never silently left out; add its line here to size it and pick its summary.
benchmarks=(
    "geodesic     ; @ 200000 3                           ; @                                  ; ratio Swift/C|max \|diff\|"
    "nmea         ; @ 200000 3                           ; @                                  ; ^RESULT"
    "gpsd-latency ; @ 600 20                             ; @ 2000 20                          ; ^(feed|our extra)"
    "magnetic     ; @ 10000 3                            ; @                                  ; ^swift-geodesy|ns/eval|max \|"
    "geoid        ; @ 200000 3                           ; @                                  ; ^swift-geodesy|ns/look-up|max \|Swift"
    "regions      ; RUNS=1 SIZES='1000 100000' @ 100000 ; RUNS=3 SIZES='1000 100000 1000000' @ 100000 ; ^RESULT"
    "regions/noisy; @                                    ; @                                  ; ^RESULT"
    "visits       ; @                                    ; @                                  ; ^\| (locationctl|trackintel) \| \*\*all"
    "energy       ; @                                    ; @                                  ; ^\| [a-zA-Z]+.*\| 1 \| 1 \|"
    "geocoding    ; @ 30000 3                            ; @                                  ; ^RESULT"
    "replay       ; @ '10000 100000' 3                   ; @                                  ; ^(locationctl|gpsdecode)"
    "altitude     ; @ 3                                  ; @ 20                               ; ^(hill|staircase|building)"
    "fusion       ; @ reporting 1                        ; @ reporting 3                      ; ^\| all|covers|^cost"
    "dbus         ; @ 1000 3                             ; @ 5000 5                           ; ^RESULT"
    "geoclue      ; @ --clients 1,8 --seconds 10             ; @ --clients 1,8,64,1000 --seconds 20 ; ^(locationd|geoclue) "
    "gpsd-protocol; @ --clients 8,64 --seconds 10 --rounds 1 ; @                                  ; ^ *[0-9]+ (locationd|gpsd|ratio)"
)

mode=cheap
if [ "${1:-}" = "--long" ]; then mode=long; shift; fi
logs="$here/out/run-all"
mkdir -p "$logs"

trim() { local s="$1"; s="${s#"${s%%[![:space:]]*}"}"; printf '%s' "${s%"${s##*[![:space:]]}"}"; }
declare -A cheap_of long_of summary_of_name
listed=()
for line in "${benchmarks[@]}"; do
    IFS=';' read -r name cheap long summary <<<"$line"
    name="$(trim "$name")"
    listed+=("$name")
    cheap_of[$name]="$(trim "$cheap")"
    long_of[$name]="$(trim "$long")"
    summary_of_name[$name]="$(trim "$summary")"
done
if [ "$#" -gt 0 ]; then names=("$@"); else
    names=("${listed[@]}")
    for script in "$here"/*/run.sh "$here"/*/*/run.sh; do
        [ -f "$script" ] || continue
        name="${script#"$here/"}"
        name="${name%/run.sh}"
        [ -n "${cheap_of[$name]+set}" ] || { echo "note: $name is not in run-all.sh's list; running it with its defaults" >&2; names+=("$name"); }
    done
fi

# The command of a benchmark in this mode: the list's template with @ replaced by its run.sh.
command_for() {
    local name="$1" template
    if [ "$mode" = long ]; then template="${long_of[$name]:-}"; else template="${cheap_of[$name]:-}"; fi
    [ -n "$template" ] || template="@"
    printf '%s' "${template//@/bash $here/$name/run.sh}"
}

# The lines of a benchmark's output that make its row of the table.
summary_of() {
    local name="$1" log="$2" pattern="${summary_of_name[$1]:-}"
    if [ -n "$pattern" ]; then grep -E "$pattern" "$log" | sed 's/^RESULT [a-z/-]* *//' | head -8; else tail -3 "$log"; fi
}

cpu="$(grep -m1 "model name" /proc/cpuinfo 2>/dev/null | sed 's/.*: //')"
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
commit="$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [ -n "$(git -C "$here" status --porcelain 2>/dev/null)" ]; then commit="$commit (with local changes)"; fi
started="$(date -u '+%Y-%m-%d %H:%M UTC')"

rows=()
failed=()
for name in "${names[@]}"; do
    if [ ! -f "$here/$name/run.sh" ]; then
        echo "== $name: no $name/run.sh yet, skipped" >&2
        rows+=("| \`Benchmarks/$name\` | $mode | skipped | 0 | no run.sh yet |")
        continue
    fi
    command="$(command_for "$name")"
    log="$logs/$name.log"
    echo "== $name ($mode): $command" >&2
    start=$SECONDS
    mkdir -p "$(dirname "$log")"
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
