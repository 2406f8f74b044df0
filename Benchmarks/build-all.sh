#!/usr/bin/env bash
# Builds (does not run) every benchmark package, so none can rot when the library changes (issue 16.1).
# Debug builds by default: the check is that the symlinked library files and the benchmark's own code
# compile together, not how fast they run. Fails on the first package that does not build, and on any
# warning in the benchmark's own code (dependencies' checkouts excepted).
# Usage: Benchmarks/build-all.sh [-c release] [NAME...]      (default: every Benchmarks/*/Package.swift and
#        Benchmarks/*/*/Package.swift; NAME is the folder below Benchmarks/, e.g. beacons/standin)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
config=debug
if [ "${1:-}" = "-c" ]; then config="$2"; shift 2; fi
if [ "$#" -gt 0 ]; then names=("$@"); else
    names=()
    # Benchmarks/NAME/Package.swift, and stand-ins one level down (Benchmarks/beacons/standin).
    for p in "$here"/*/Package.swift "$here"/*/*/Package.swift; do names+=("${p#"$here"/}"); done
    names=("${names[@]%/Package.swift}")
fi

failed=()
for name in "${names[@]}"; do
    dir="$here/$name"
    log="$(mktemp)"
    start=$SECONDS
    if swift build -c "$config" --package-path "$dir" --scratch-path "$dir/.build" >"$log" 2>&1; then
        if grep "warning:" "$log" | grep -v "/.build/checkouts/" | grep -q .; then
            echo "FAIL $name: warnings" >&2
            grep "warning:" "$log" | grep -v "/.build/checkouts/" >&2
            failed+=("$name")
        else
            echo "ok   $name ($config, $((SECONDS - start)) s)"
        fi
    else
        echo "FAIL $name" >&2
        grep -E "error:" "$log" | head -20 >&2 || tail -20 "$log" >&2
        failed+=("$name")
    fi
    rm -f "$log"
done
if [ "${#failed[@]}" -gt 0 ]; then
    echo "benchmark packages that do not build: ${failed[*]}" >&2
    exit 1
fi
