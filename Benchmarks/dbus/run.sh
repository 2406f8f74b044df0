#!/usr/bin/env bash
# D-Bus round trips, the native layer (Sources/CoreLocationDBus) against the libdbus layer it replaced
# (Sources/LibdbusDBus, from git history), side by side in one run on a private dbus-daemon with a
# python-dbusmock service (README.md; docs/decisions/0058).
#   Benchmarks/dbus/run.sh [ITERATIONS] [ROUNDS]     (default 2000 round trips of each kind, 3 rounds)
# Needs dbus (dbus-daemon), libdbus-1-dev and pkg-config (the old layer only), python3-dbusmock: installed with
# apt-get when missing and this runs as root or with password-less sudo, else it stops naming them.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
iterations="${1:-2000}"
rounds="${2:-3}"

missing=()
[ -x /usr/bin/dbus-daemon ] || missing+=(dbus)
pkg-config --exists dbus-1 2>/dev/null || missing+=(libdbus-1-dev pkg-config)
/usr/bin/python3 -c 'import dbusmock' 2>/dev/null || missing+=(python3-dbusmock)
if [ "${#missing[@]}" -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then sudo=""
    elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo="sudo"
    else echo "Benchmarks/dbus needs the Debian packages: ${missing[*]} (apt-get install ${missing[*]})" >&2; exit 1
    fi
    echo "== installing ${missing[*]}"
    $sudo apt-get update -qq && $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

out="$here/out"
mkdir -p "$out"
echo "== building (release)"
swift build -c release --package-path "$here" --scratch-path "$here/.build" >"$out/swift-build.log" 2>&1 \
    || { tail -30 "$out/swift-build.log"; exit 1; }

scratch="$(mktemp -d)"
daemon="" mock=""
cleanup() {
    [ -z "$mock" ] || kill "$mock" 2>/dev/null || true
    [ -z "$daemon" ] || kill "$daemon" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$scratch"
}
trap cleanup EXIT
cat >"$scratch/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:path=$scratch/bus</listen>
<policy context="default"><allow send_destination="*"/><allow receive_sender="*"/><allow own="*"/></policy></busconfig>
CONF
/usr/bin/dbus-daemon --config-file="$scratch/bus.conf" --nofork --print-address=3 3>"$scratch/address" 2>"$scratch/daemon.log" &
daemon=$!
for _ in $(seq 100); do [ -s "$scratch/address" ] && break; sleep 0.1; done
address="$(head -1 "$scratch/address")"
DBUS_SESSION_BUS_ADDRESS="$address" /usr/bin/python3 -m dbusmock org.corelocation.Bench /org/corelocation/Bench \
    org.corelocation.Bench1 >/dev/null 2>&1 &
mock=$!
/usr/bin/python3 - "$address" <<'PY'
import sys, time, dbus
bus = dbus.bus.BusConnection(sys.argv[1])
for _ in range(100):
    if bus.name_has_owner("org.corelocation.Bench"):
        break
    time.sleep(0.1)
mock = bus.get_object("org.corelocation.Bench", "/org/corelocation/Bench", introspect=False)
mock.AddMethod("org.corelocation.Bench1", "Echo", "si", "si", "ret = args", dbus_interface="org.freedesktop.DBus.Mock")
PY
echo "== $iterations round trips of each kind, $rounds rounds, layers alternating (dbus-daemon $(/usr/bin/dbus-daemon --version | head -1 | awk '{print $NF}'))"
"$here/.build/release/DBusBench" "$address" "$iterations" "$rounds"
