#!/usr/bin/env bash
# Reproduces Benchmarks/visits/tracks/ from the PyPI source distributions of gpxo 0.3.0 (BSD-3-Clause)
# and gpxpy 1.6.2 (Apache-2.0), checking the sha256 of both archives and of every track written.
#
#   Benchmarks/visits/fetch-tracks.sh          # (re)write tracks/ and check it
#   Benchmarks/visits/fetch-tracks.sh --check  # only check the committed tracks/ against SHA256SUMS
#
# Needs pip and python3 (standard library only). Files:
#   ExampleTrack.gpx             gpxo-0.3.0/ExampleTrack.gpx, unchanged
#   cerknicko-jezero.gpx         gpxpy-1.6.2/test_files/cerknicko-jezero.gpx, unchanged
#   around-visnjan-with-car.gpx  gpxpy-1.6.2/test_files/around-visnjan-with-car.gpx, unchanged
#   korita-zbevnica-timed.gpx    gpxpy-1.6.2/test_files/korita-zbevnica.gpx without its two <trk> blocks that
#                                have no <time> (an empty one, and a 358-point track of another walk on
#                                another day); everything else byte for byte. Reason: a replayer that sees
#                                one untimed point re-times the whole file at walking pace, which would
#                                erase the stays.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/tracks"

check() {
    (cd "$out" && sha256sum --check --strict SHA256SUMS)
}

if [[ "${1:-}" == "--check" ]]; then
    check
    exit
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
pip download --quiet --no-deps --no-binary :all: --dest "$work" gpxo==0.3.0 gpxpy==1.6.2
(cd "$work" && sha256sum --check --strict - <<'SUMS'
8d0ad998eafa5a4301ea06c0b9951dd590ae888127a7aac2683903caa92ae72b  gpxo-0.3.0.tar.gz
a72c484b97ec42b80834353b029cc8ee1b79f0ffca1179b2210bb3baf26c01ae  gpxpy-1.6.2.tar.gz
SUMS
)
tar -xzf "$work/gpxo-0.3.0.tar.gz" -C "$work" gpxo-0.3.0/ExampleTrack.gpx
tar -xzf "$work/gpxpy-1.6.2.tar.gz" -C "$work" \
    gpxpy-1.6.2/test_files/cerknicko-jezero.gpx \
    gpxpy-1.6.2/test_files/around-visnjan-with-car.gpx \
    gpxpy-1.6.2/test_files/korita-zbevnica.gpx

mkdir -p "$out"
cp "$work/gpxo-0.3.0/ExampleTrack.gpx" "$out/ExampleTrack.gpx"
cp "$work/gpxpy-1.6.2/test_files/cerknicko-jezero.gpx" "$out/cerknicko-jezero.gpx"
cp "$work/gpxpy-1.6.2/test_files/around-visnjan-with-car.gpx" "$out/around-visnjan-with-car.gpx"
python3 - "$work/gpxpy-1.6.2/test_files/korita-zbevnica.gpx" "$out/korita-zbevnica-timed.gpx" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8", newline="").read()
# Drop each <trk>...</trk> block (with its line break) that holds no <time>; keep the rest verbatim.
kept = re.sub(r"<trk>(?:(?!</trk>).)*</trk>\r?\n", lambda m: m.group(0) if "<time>" in m.group(0) else "",
              text, flags=re.DOTALL)
open(sys.argv[2], "w", encoding="utf-8", newline="").write(kept)
PY
check
