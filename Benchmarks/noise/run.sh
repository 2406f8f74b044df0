#!/usr/bin/env bash
# Measures the real recordings (measure.py: the four GPX tracks and gpsd's regression logs from Debian's
# source package) into measured.json, then writes the synthetic urban tracks (synth.py), and checks both
# against the committed files: the figures the synthetic set is built from, and the set itself, are
# reproducible.
#
#   Benchmarks/noise/run.sh        # needs python3, apt-get (Debian's source package gpsd), ~4 MB download
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
logs="$("$here/fetch-gpsd-logs.sh" "$work")"
python3 "$here/measure.py" "$logs" >"$here/measured.json"
python3 "$here/synth.py"
if ! git -C "$here" diff --quiet -- measured.json tracks labels; then
    echo "measure.py or synth.py no longer reproduce the committed files (git diff $here)" >&2
    exit 1
fi
python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["summary"], indent=1))' "$here/measured.json"
