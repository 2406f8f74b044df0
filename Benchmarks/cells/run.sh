#!/usr/bin/env bash
# The offline cell table: import rate, file size per million cells, warm look-up p50/p99 — our CellTableImporter and
# CellTable (release build) beside the same work in Python's sqlite3 (same SQLite library, the obvious layout: a rowid
# table and a separate index), on the same generated rows and keys, in one run.
# Usage: Benchmarks/cells/run.sh [ROWS] [KEYS]     (default 1000000 rows, 100000 keys; the issue asks for 10^7)
set -euo pipefail
. "$(dirname "$0")/../require.sh"
require_commands swift python3
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/out"
mkdir -p "$out"
rows="${1:-1000000}"
keys="${2:-100000}"
if [ ! -f "$out/cells-$rows.csv" ]; then
    echo "== generating $rows cells (seed 18) and $keys keys (90 % present)"
    python3 "$here/generate.py" "$rows" "$out/cells-$rows.csv" "$out/keys-$rows.txt" "$keys"
fi
echo "== building (release)"
swift build -c release --package-path "$here" --scratch-path "$here/.build" >"$out/swift-build.log" 2>&1 \
    || { cat "$out/swift-build.log"; exit 1; }
echo "== Swift, then Python sqlite3, twice (same machine, same run)"
for round in 1 2; do
    "$here/.build/release/CellsBench" "$out/cells-$rows.csv" "$out/swift.sqlite" "$out/keys-$rows.txt" \
        | tee "$out/swift-$round.json"
    python3 "$here/peer.py" "$out/cells-$rows.csv" "$out/peer.sqlite" "$out/keys-$rows.txt" | tee "$out/peer-$round.json"
done
python3 - "$out" <<'PY'
import json, statistics, sys
out = sys.argv[1]
s = [json.load(open(f"{out}/swift-{r}.json")) for r in (1, 2)]
p = [json.load(open(f"{out}/peer-{r}.json")) for r in (1, 2)]
assert s[0]["found"] == p[0]["found"] and abs(s[0]["checksum"] - p[0]["checksum"]) < 1e-3, "Swift and peer disagree"
def med(rows, key): return statistics.median(r[key] for r in rows)
print("| | Swift (CellTable) | Python sqlite3 (rowid + index) | Swift / peer |")
print("|---|---|---|---|")
for key, unit, scale in (("rows_per_s", "rows/s", 1), ("bytes_per_million", "MB per 10^6 cells", 1e-6),
                         ("p50_ns", "µs", 1e-3), ("p99_ns", "µs", 1e-3)):
    print(f"| {key} | {med(s, key) * scale:.3g} {unit} | {med(p, key) * scale:.3g} {unit} | {med(s, key) / med(p, key):.2f} |")
print(f"{int(s[0]['rows'])} rows, {int(s[0]['lookups'])} look-ups, {int(s[0]['found'])} found by both (checksums agree)")
PY
