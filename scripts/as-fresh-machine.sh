#!/usr/bin/env bash
# Runs a command as on a fresh machine that has only the Swift toolchain (issue 34): in a private mount
# namespace, the files of the packages a fresh Debian machine lacks are hidden — the D-Bus and MaxMind
# development files (headers, pkg-config files, development symlinks) and libmaxminddb itself — and, with
# --without-tools, the programs the system tests use (gpsd, dbus-daemon, chromium, systemd's tools, python's
# dbusmock), so that their suites must say they were skipped.
#
#   scripts/as-fresh-machine.sh [--without-tools] COMMAND [ARG…]
#
# Needs root (unshare -m); the command runs as the invoking user again when run through sudo. Nothing outside
# the namespace changes: the files are covered by empty ones (bind mounts), never removed.
set -euo pipefail
without_tools=0
if [ "${1:-}" = --without-tools ]; then without_tools=1; shift; fi
[ $# -gt 0 ] || { echo "usage: $0 [--without-tools] COMMAND [ARG…]" >&2; exit 64; }
[ "$(id -u)" = 0 ] || { echo "$0: needs root for a private mount namespace (sudo $0 …)" >&2; exit 77; }

# What a fresh Debian 12 machine with the Swift toolchain does not have. (It does have libdbus-1-3, the run-time
# library systemd depends on; but covering the development link libdbus-1.so covers the library it points to,
# so the command runs without libdbus at all — stricter than a fresh machine, and nothing of ours needs it.)
packages=(libdbus-1-dev libmaxminddb-dev libmaxminddb0)
# gpsd-clients, gpsd-tools: gpspipe and cgps, which the gpsd front door tests run (they also link libdbus, hidden above).
tools_packages=(gpsd gpsd-clients gpsd-tools dbus-daemon dbus-bin chromium systemd python3-dbusmock)

# Every regular file and symbolic link of those packages that is there (directories stay, emptied of meaning).
hidden_files() {
    local package
    for package in "$@"; do
        dpkg-query -W "$package" >/dev/null 2>&1 || continue
        dpkg -L "$package" 2>/dev/null | while read -r path; do
            if [ -f "$path" ] || [ -L "$path" ]; then printf '%s\n' "$path"; fi
        done
    done
}

list="$(mktemp)"
trap 'rm -f "$list"' EXIT
hidden_files "${packages[@]}" >"$list"
# A directory all of whose files are hidden (dbus-1.0/dbus/) is covered whole, so `#include <dbus/dbus.h>` finds
# nothing rather than an empty file.
for package in "${packages[@]}"; do
    dpkg-query -W "$package" >/dev/null 2>&1 || continue
    dpkg -L "$package" 2>/dev/null | while read -r dir; do
        [ -d "$dir" ] && [ ! -L "$dir" ] || continue
        any="$(find "$dir" \( -type f -o -type l \) -print -quit)"
        others="$(find "$dir" \( -type f -o -type l \) | grep -m1 -vxF -f "$list" || true)"
        if [ -n "$any" ] && [ -z "$others" ]; then printf '%s\n' "$dir"; fi
    done
done >>"$list"
if [ "$without_tools" = 1 ]; then
    hidden_files "${tools_packages[@]}" | grep -E '/(s?bin|libexec)/' >>"$list" || true
    # PyPI's python-dbusmock 0.38, which .ci/run puts beside the build for the ModemManager mock.
    for dir in .build/dbusmock-0.38; do [ -d "$dir" ] && printf '%s\n' "$(cd "$dir" && pwd)" >>"$list"; done
fi

user="${SUDO_UID:-0}" group="${SUDO_GID:-0}"
exec unshare -m --propagation private bash -c '
    list="$1" user="$2" group="$3"; shift 3
    empty_dir="$(mktemp -d)"
    while read -r path; do
        [ -e "$path" ] || continue   # inside a directory covered already
        # mount follows a symbolic link: its target is covered, so the name no longer leads anywhere usable.
        if [ -d "$path" ]; then mount --bind "$empty_dir" "$path"; else mount --bind /dev/null "$path"; fi
    done <"$list"
    if [ "$user" != 0 ]; then exec setpriv --reuid="$user" --regid="$group" --init-groups -- "$@"; fi
    exec "$@"
' bash "$list" "$user" "$group" "$@"
