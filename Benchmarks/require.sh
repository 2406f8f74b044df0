# Sourced by Benchmarks/*/run.sh: what a benchmark needs from the system, checked before anything is built.
#
#   require_packages PACKAGE...   Debian packages (checked with dpkg-query)
#   require_commands COMMAND...   commands that come with the toolchain (swift, python3, g++)
#   require_venv                  `python3 -m venv` works (Debian's own python3 needs python3-venv)
#
# A missing Debian package is installed with apt-get when the script runs as root (as .ci/run does, with
# services kept from starting), or else the script stops at once with one line naming the packages: never a
# long build that dies in its last step for want of a library.

require_packages() {
    local missing=() package
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" || missing+=("$package")
    done
    [ "${#missing[@]}" -eq 0 ] && return 0
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null || [ "${BENCH_NO_INSTALL:-}" = 1 ]; then
        echo "needs Debian package(s) ${missing[*]}: sudo apt-get install -y ${missing[*]}" >&2
        exit 1
    fi
    echo "== installing ${missing[*]} (apt-get)" >&2
    # Packages must not start services (gpsd's would hold 127.0.0.1:2947, which the benchmarks use).
    local placed=""
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && placed=1
    fi
    local status=0
    { DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1 \
        || { apt-get update -q >/dev/null 2>&1 \
            && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null; }
    } || status=1
    [ -n "$placed" ] && rm -f /usr/sbin/policy-rc.d
    if [ "$status" != 0 ]; then
        echo "needs Debian package(s) ${missing[*]}: apt-get install failed" >&2
        exit 1
    fi
}

require_commands() {
    local command
    for command in "$@"; do
        command -v "$command" >/dev/null || { echo "needs $command on PATH" >&2; exit 1; }
    done
}

require_venv() {
    require_commands python3
    python3 -c 'import venv, ensurepip' 2>/dev/null \
        || { echo "needs Python's venv and ensurepip: sudo apt-get install -y python3-venv" >&2; exit 1; }
}
