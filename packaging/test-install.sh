#!/usr/bin/env bash
# The .deb installed for real (dpkg -i, maintainer scripts and all) into a booted Debian 12: a debootstrap tree run
# by systemd-nspawn with systemd as its PID 1, so the hardened locationd.service runs under a real systemd with
# every directive applied. Checks (each failure is named, and the script exits 1):
#   - dpkg -i succeeds; /usr/bin/locationd and /usr/bin/locationctl are hard links of one file (decision 0101); the
#     maintainer scripts made the user corelocation (in dialout), /var/lib/corelocation 0700,
#     and enabled and started locationd.socket through deb-systemd-helper / deb-systemd-invoke
#   - `systemd-analyze verify` passes on the system units and the per-user units, man pages included; the
#     security exposure of locationd.service is at most 2.5
#   - the daemon, started by its socket as the unit says, answers clients: `locationctl authorize --list`, and a
#     `locationctl locate` served from its simulated source, for the user corelocation and for a member of the
#     corelocation group (another uid); it runs with no capability, no new privileges and a seccomp filter
#   - under that unit it reaches gpsd on 127.0.0.1:2947, and its open of a serial line (a UART node, tried when gpsd
#     gave no fix for 10 s) reaches the device (opened, or ENXIO where no UART is behind it), not a sandbox EPERM; a
#     probe with the unit's sandbox calls getifaddrs (as the IP source does: netlink), which lists 127.0.0.1, and
#     fails without AF_NETLINK
#   - `locationctl reverse 48.85 2.35` names Paris from the installed gazetteer (no build tree in the container)
#   - dpkg --purge removes the package, its state and its user
#
#   packaging/test-install.sh [PACKAGE.deb]   # default: the newest .build/deb/corelocation_*.deb
#
# Exit status: 0 every check passed; 1 a check failed (the package, its units or the daemon); 77 the machine cannot
# run the test (not root, a tool missing, debootstrap failed, the container did not boot), before the package was
# installed; 64 no package. .ci/run runs it through packaging/ci-package.sh, which fails on 1 and says 77 loudly.
#
# Not beside `swift test`: the container shares the host's network (apt needs it), so its gpsd holds 127.0.0.1:2947,
# which the tests that expect no gpsd there see. Needs root, debootstrap and systemd-container (systemd-nspawn); the Debian 12 tree is made once with debootstrap
# from Debian's mirror and kept in $INSTALL_TEST_CACHE (default /var/tmp/corelocation-install-test), each run works
# on a copy. Prints the time each stage took.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
arch="$(dpkg --print-architecture)"
deb="${1:-$(ls -t .build/deb/corelocation_*_"$arch".deb 2>/dev/null | head -n 1)}"
[ -n "$deb" ] && [ -f "$deb" ] || { echo "test-install.sh: no package; run packaging/build-deb.sh first" >&2; exit 64; }
[ "$(id -u)" = 0 ] || { echo "test-install.sh: needs root (debootstrap, systemd-nspawn)" >&2; exit 77; }
for tool in debootstrap:debootstrap systemd-nspawn:systemd-container nsenter:util-linux; do
    command -v "${tool%%:*}" >/dev/null || { echo "test-install.sh: needs ${tool%%:*} (Debian package ${tool#*:})" >&2; exit 77; }
done

started=$(date +%s)
stage() { echo "== [$(( $(date +%s) - started )) s] $*"; }
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# The Debian 12 tree: systemd and D-Bus (a booted system), adduser (the postinst), man-db (systemd-analyze verify
# checks the units' man: links), gpsd (the daemon's default source, on localhost), iproute2 (the netlink probe).
cache="${INSTALL_TEST_CACHE:-/var/tmp/corelocation-install-test}"
base="$cache/bookworm-$arch"
if [ ! -f "$base/.complete" ]; then
    stage "debootstrap bookworm into $base"
    rm -rf "$base"
    mkdir -p "$cache"
    debootstrap --variant=minbase --include=systemd,dbus,adduser,man-db,gpsd,iproute2 bookworm "$base" \
        "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" >"$cache/debootstrap.log" 2>&1 \
        || { tail -20 "$cache/debootstrap.log" >&2; echo "test-install.sh: debootstrap failed (the mirror?)" >&2; exit 77; }
    touch "$base/.complete"
fi

work="$(mktemp -d /var/tmp/corelocation-install-test.XXXXXX)"
machine="$work/root"
nspawn=""
cleanup() {
    if [ -n "$nspawn" ] && kill -0 "$nspawn" 2>/dev/null; then
        kill "$nspawn" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$nspawn" 2>/dev/null || break; sleep 0.2; done
        kill -9 "$nspawn" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
stage "copy the tree"
cp -a "$base" "$machine"
echo corelocation-test > "$machine/etc/hostname"
cp "$deb" "$machine/root/"
package="/root/$(basename "$deb")"

stage "boot it (systemd-nspawn -b)"
# No host systemd is needed: --register=no and --keep-unit leave machined and the host's manager out.
systemd-nspawn --quiet --register=no --keep-unit --console=passive -D "$machine" -b >"$work/console.log" 2>&1 &
nspawn=$!
# The container's PID 1 is systemd-nspawn's child once the set-up child in between has gone: wait for a child whose
# command is systemd.
leader=""
for _ in $(seq 300); do
    for child in $(pgrep -P "$nspawn" || true); do
        [ "$(cat "/proc/$child/comm" 2>/dev/null)" = systemd ] && leader="$child"
    done
    [ -n "$leader" ] && break
    sleep 0.1
done
[ -n "$leader" ] || { cat "$work/console.log" >&2; echo "test-install.sh: the container did not start" >&2; exit 77; }
inside() { nsenter -t "$leader" -a -- "$@"; }
# systemctl answers once systemd has made its socket; then `--wait` waits for the boot to finish.
state=""
for _ in $(seq 600); do
    state="$(inside systemctl is-system-running --wait 2>/dev/null || true)"
    case "$state" in running | degraded) break ;; esac
    sleep 0.2
done
[ "$state" = running ] || [ "$state" = degraded ] \
    || { cat "$work/console.log" >&2; echo "test-install.sh: the container did not boot: $state" >&2; exit 77; }

stage "dpkg -i $(basename "$deb")"
# apt, not bare dpkg -i: the package's Depends (dpkg-shlibdeps') come from Debian's archive, as for a user's
# `sudo apt install ./corelocation_*.deb`; the maintainer scripts run the same way.
{ inside apt-get update -qq && inside env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    "$package"; } >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log" >&2; fail "apt install"; exit 1; }
inside getent passwd corelocation | grep -q ':/var/lib/corelocation:/usr/sbin/nologin$' || fail "no user corelocation"
inside id -nG corelocation | grep -qw dialout || fail "corelocation is not in dialout"
[ "$(inside stat -c '%a %U %G' /var/lib/corelocation)" = "700 corelocation corelocation" ] \
    || fail "/var/lib/corelocation: $(inside stat -c '%a %U %G' /var/lib/corelocation)"
# One binary under two names (docs/decisions/0101): dpkg made the hard link again.
[ "$(inside stat -c '%i %h' /usr/bin/locationd)" = "$(inside stat -c '%i %h' /usr/bin/locationctl)" ] \
    && [ "$(inside stat -c %h /usr/bin/locationd)" = 2 ] || fail "/usr/bin/locationd and locationctl are not one file"
[ "$(inside systemctl is-enabled locationd.socket)" = enabled ] || fail "locationd.socket is not enabled"
[ "$(inside systemctl is-active locationd.socket)" = active ] || fail "locationd.socket is not listening"
[ "$(inside systemctl is-active locationd.service || true)" = inactive ] || fail "locationd.service started before a client"

stage "systemd-analyze verify, security"
inside systemd-analyze verify /lib/systemd/system/locationd.socket /lib/systemd/system/locationd.service \
    >"$work/verify.log" 2>&1 || { cat "$work/verify.log" >&2; fail "systemd-analyze verify (system units)"; }
inside mkdir -p -m 0700 /run/user/0
inside env XDG_RUNTIME_DIR=/run/user/0 systemd-analyze --user verify /usr/lib/systemd/user/locationd.socket \
    /usr/lib/systemd/user/locationd.service /usr/lib/systemd/user/corelocation-agent.service \
    /usr/lib/systemd/user/corelocation-report.service >"$work/verify-user.log" 2>&1 \
    || { cat "$work/verify-user.log" >&2; fail "systemd-analyze verify (user units)"; }
exposure="$(inside systemd-analyze security --no-pager locationd.service | sed -n 's/.*Overall exposure level for locationd.service: \([0-9.]*\).*/\1/p')"
echo "   locationd.service exposure: $exposure (goal <= 2.5)"
awk -v e="$exposure" 'BEGIN { exit !(e != "" && e <= 2.5) }' || fail "exposure $exposure > 2.5"

stage "the daemon answers clients (socket activation, the unit's sandbox)"
# A simulated source, so that a fix comes without hardware; gpsd, a serial line and the IP source beside it.
inside mknod -m 0660 /dev/ttyS3 c 4 67
inside chgrp dialout /dev/ttyS3
cat >>"$machine/etc/corelocation/locationd.conf" <<'CONF'
simulate = 48.8584,2.2945
source = gpsd://127.0.0.1:2947
source = serial:/dev/ttyS3?baud=9600
CONF
inside systemctl start gpsd.socket
inside useradd --create-home --groups corelocation alice
client() {  # client USER ARGS…: locationctl through the system daemon only, as USER
    local user="$1"; shift
    inside setpriv --reuid "$user" --regid "$user" --init-groups --reset-env -- \
        env HOME=/tmp CORELOCATION_DAEMON=require CORELOCATION_PROMPT=never timeout 30 /usr/bin/locationctl "$@"
}
for user in corelocation alice; do
    if ! client "$user" authorize --list >"$work/list-$user.txt" 2>&1; then
        cat "$work/list-$user.txt" >&2; fail "locationctl authorize --list as $user"
    fi
    client "$user" authorize locationctl always >"$work/allow-$user.txt" 2>&1 \
        || { cat "$work/allow-$user.txt" >&2; fail "locationctl authorize as $user"; }
    if client "$user" locate --format json >"$work/locate-$user.txt" 2>&1 \
        && grep -q '"latitude" *: *48.858' "$work/locate-$user.txt"; then
        echo "   $user: $(tr -d '\n ' <"$work/locate-$user.txt" | cut -c1-100)"
    else
        cat "$work/locate-$user.txt" >&2; fail "locationctl locate through the daemon as $user"
    fi
done
# `simulate` makes the simulated source the only one (locationd's makeSources): the receivers get a run of their
# own, without it, with a client whose request gives them demand.
# track_with SOURCES SECONDS: locationd restarted with SOURCES as its locationd.conf, and a client of the user
# corelocation tracking in the background for at most SECONDS ($waiting: its pid). It tracks (`locate` gives up after
# 10 s, when the engine is only turning to the serial line), waiting for a fix that no receiver here gives (gpsd has no
# device, the line no UART): it ends at its timeout, waited for below, so that no process of the user corelocation is
# left when the purge deletes the user.
track_with() {
    printf '%s\n' "$1" >"$machine/etc/corelocation/locationd.conf.receivers"
    inside cp /etc/corelocation/locationd.conf.receivers /etc/corelocation/locationd.conf
    inside systemctl restart locationd.service
    inside setpriv --reuid corelocation --regid corelocation --init-groups --reset-env -- \
        env HOME=/tmp CORELOCATION_DAEMON=require CORELOCATION_PROMPT=never timeout "$2" /usr/bin/locationctl \
        track --limit 1 --format json >/dev/null 2>&1 &
    waiting=$!
}
track_with $'source = gpsd://127.0.0.1:2947\nsource = serial:/dev/ttyS3?baud=9600' 25
sleep 5
pid="$(inside systemctl show -p MainPID --value locationd.service)"
if [ "${pid:-0}" -gt 0 ]; then
    status="$(inside cat "/proc/$pid/status")"
    echo "$status" | grep -q '^CapEff:[[:space:]]*0000000000000000$' || fail "the daemon has capabilities"
    echo "$status" | grep -q '^NoNewPrivs:[[:space:]]*1$' || fail "the daemon may gain privileges"
    echo "$status" | grep -q '^Seccomp:[[:space:]]*2$' || fail "the daemon has no system-call filter"
    [ "$(inside stat -c %U "/proc/$pid")" = corelocation ] || fail "the daemon does not run as corelocation"
    # gpsd: an established TCP connection from the daemon to port 2947 (0B83).
    sockets="$(inside find "/proc/$pid/fd" -lname 'socket:*' -printf '%l\n' | sed 's/socket:\[\(.*\)\]/\1/')"
    established="$(inside cat "/proc/$pid/net/tcp" "/proc/$pid/net/tcp6" | awk '$3 ~ /:0B83$/ && $4 == "01" { print $10 }')"
    echo "$sockets" | grep -qxF -f <(echo "$established") || fail "no connection from the daemon to gpsd on localhost"
else
    fail "locationd.service has no main process: $(inside systemctl status --no-pager locationd.service | tail -5)"
fi
wait "$waiting" || true
# The serial line on its own (beside gpsd the engine keeps to gpsd): its open must reach the device — the daemon holds
# it, or, with no UART behind ttyS3 (a VM whose one serial port is its console), the kernel answers ENXIO "No such
# device or address" — and not the sandbox's EPERM, which the journal check below catches.
track_with "source = serial:/dev/ttyS3?baud=9600" 10
serial=""
for _ in $(seq 40); do
    pid="$(inside systemctl show -p MainPID --value locationd.service)"
    if [ "${pid:-0}" -gt 0 ] && inside find "/proc/$pid/fd" -lname /dev/ttyS3 2>/dev/null | grep -q .; then
        serial="opened"; break
    fi
    if inside journalctl --no-pager -o cat -u locationd.service | grep -q 'cannot open /dev/ttyS3: No such device or address'; then
        serial="reached the kernel (ENXIO: no UART behind ttyS3 here)"; break
    fi
    sleep 0.25
done
[ -n "$serial" ] && echo "   the serial line: $serial" || fail "the daemon did not open the serial line"
wait "$waiting" || true
inside journalctl --no-pager -u locationd.service >"$work/journal.txt" 2>&1 || true
if grep -E 'Operation not permitted|Permission denied|Bad system call|Address family not supported' "$work/journal.txt"; then
    fail "the sandbox refused the daemon something (journal above)"
fi

stage "netlink under the unit's sandbox"
# locationd.service with its ExecStart replaced by a call of getifaddrs(3) (what the IP source calls; Python's ctypes,
# Python being there for gpsd): it must list the loopback address; the same without AF_NETLINK must fail, so the
# check can tell. (`ip address` is no probe: as the unit's user, under its system-call filter, it exits 1 with netlink or without.)
cat >"$machine/usr/local/bin/getifaddrs-probe" <<'PY'
#!/usr/bin/python3
import ctypes, socket, sys
class Sockaddr(ctypes.Structure):
    _fields_ = [("family", ctypes.c_ushort), ("data", ctypes.c_ubyte * 14)]
class Ifaddrs(ctypes.Structure):
    pass
Ifaddrs._fields_ = [("next", ctypes.POINTER(Ifaddrs)), ("name", ctypes.c_char_p), ("flags", ctypes.c_uint),
                    ("addr", ctypes.POINTER(Sockaddr))]
libc = ctypes.CDLL(None, use_errno=True)
head = ctypes.POINTER(Ifaddrs)()
if libc.getifaddrs(ctypes.byref(head)) != 0:
    sys.exit(f"getifaddrs: errno {ctypes.get_errno()}")
node = head
while node:
    entry = node.contents
    if entry.addr and entry.addr.contents.family == socket.AF_INET:
        print(entry.name.decode(), socket.inet_ntoa(bytes(entry.addr.contents.data[2:6])))
    node = entry.next
PY
chmod 0755 "$machine/usr/local/bin/getifaddrs-probe"
probe() {  # probe NAME FAMILIES: run the probe unit with RestrictAddressFamilies=FAMILIES, print its output
    sed -e 's|^ExecStart=.*|ExecStart=/usr/local/bin/getifaddrs-probe|' -e 's/^Type=notify/Type=oneshot/' \
        -e '/^NotifyAccess=/d' -e '/^Requires=/d' -e '/^Restart/d' -e '/^Also=/d' \
        -e "s/^RestrictAddressFamilies=.*/RestrictAddressFamilies=$2/" \
        "$machine/lib/systemd/system/locationd.service" >"$work/$1.service"
    # The booted container's /run is its own tmpfs, not the tree's directory: write through its mount namespace.
    inside sh -c "cat > /etc/systemd/system/$1.service" <"$work/$1.service"
    inside systemctl daemon-reload
    inside systemctl start "$1.service" 2>/dev/null || true  # the probe without AF_NETLINK fails, as it must
    inside journalctl --no-pager -o cat -u "$1.service"
}
probe corelocation-netlink "AF_UNIX AF_INET AF_INET6 AF_NETLINK" | grep -q '127.0.0.1' \
    || fail "getifaddrs under locationd.service's sandbox did not list 127.0.0.1"
probe corelocation-no-netlink "AF_UNIX AF_INET AF_INET6" | grep -q '127.0.0.1' \
    && fail "the probe listed addresses without AF_NETLINK: it cannot tell"

stage "locationctl reverse from the installed gazetteer"
reverse="$(inside setpriv --reuid alice --regid alice --init-groups --reset-env -- env HOME=/tmp \
    /usr/bin/locationctl reverse 48.85 2.35 2>&1 || true)"
echo "   $reverse" | head -n 3
echo "$reverse" | grep -q Paris || fail "locationctl reverse 48.85 2.35 did not name Paris"

stage "dpkg --purge"
inside dpkg --purge corelocation >"$work/purge.log" 2>&1 || { cat "$work/purge.log" >&2; fail "dpkg --purge"; }
inside test ! -e /var/lib/corelocation || fail "/var/lib/corelocation left after purge"
! inside getent passwd corelocation >/dev/null || fail "user corelocation left after purge"
[ "$(inside systemctl is-active locationd.socket || true)" != active ] || fail "locationd.socket still listening"

if [ "$failures" -gt 0 ]; then
    echo "== the journal of locationd.service:" >&2
    tail -40 "$work/journal.txt" >&2
    stage "$failures check(s) failed"
    exit 1
fi
stage "every check passed"
