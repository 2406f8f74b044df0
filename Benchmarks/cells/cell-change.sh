#!/usr/bin/env bash
# Time from a serving-cell change (the ModemManager mock's Location[3GPP_LAC_CI]) to the new fix out of the engine,
# through the released locationctl (`track --source modem:cell`): cellchange.py, three runs of CHANGES changes.
# No peer: nothing offline turns a ModemManager cell change into a position (GeoClue's 3GPP source needs an online
# geolocation service), so the number stands alone.
# Needs dbus-daemon and PyPI python-dbusmock 0.38 in .build/dbusmock-0.38 (as .ci/run installs it).
# Usage: Benchmarks/cells/cell-change.sh [CHANGES]     (default 25)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$here/out"
mkdir -p "$out"
changes="${1:-25}"
dbusmock="${CORELOCATION_DBUSMOCK_PATH:-$root/.build/dbusmock-0.38}"
echo "== building locationctl (release)"
swift build -c release --product locationctl --package-path "$root" >"$out/locationctl-release.log" 2>&1 \
    || { tail -50 "$out/locationctl-release.log"; exit 1; }
bin="$(swift build -c release --package-path "$root" --show-bin-path)"
for round in 1 2 3; do
    /usr/bin/python3 "$here/cellchange.py" "$bin/locationctl" "$dbusmock" "$changes" | tee "$out/cellchange-$round.json"
done
/usr/bin/python3 - "$out" <<'PY'
import json, statistics, sys
runs = [json.load(open(f"{sys.argv[1]}/cellchange-{r}.json")) for r in (1, 2, 3)]
for key in ("median_ms", "p90_ms", "min_ms", "max_ms"):
    print(f"{key}: {statistics.median(r[key] for r in runs):.1f} (runs: {', '.join(f'{r[key]:.1f}' for r in runs)})")
print(f"{sum(r['changes'] for r in runs)} changes in {len(runs)} runs")
PY
