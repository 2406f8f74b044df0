#!/usr/bin/env bash
# Region crossings on a FRESH draw of the urban track generator (decision 0065: a rule tuned on the halves is
# confirmed on data nobody tuned on): Benchmarks/noise/synth.py with another seed, 48 tracks, scored like the
# halves (every track counted as "reporting"). The committed tracks use seed 35.
# Usage: Benchmarks/regions/noisy/fresh-draw.sh SEED   (e.g. 36, 37; prints the markdown rows)
set -euo pipefail
seed="${1:?usage: fresh-draw.sh SEED}"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
draw="$(mktemp -d)"
trap 'rm -rf "$draw"' EXIT
python3 "$root/Benchmarks/noise/synth.py" --seed "$seed" --out "$draw/Benchmarks/noise"
mkdir -p "$draw/Benchmarks/regions/noisy/tracks"
echo '{}' > "$draw/Benchmarks/regions/noisy/tracks/regions.json"
for track in "$draw"/Benchmarks/noise/tracks/synth-*.csv; do
    echo "reporting $(basename "$track" .csv)"
done > "$draw/Benchmarks/noise/split.txt"
swift build -c release --package-path "$here" --product UrbanRegions >&2
HALF=reporting "$here/.build/release/UrbanRegions" "$draw" | sed "s/^| reporting |/| seed $seed |/"
