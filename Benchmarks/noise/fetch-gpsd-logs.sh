#!/usr/bin/env bash
# Fetches gpsd 3.22's regression logs (test/daemon/*.log: NMEA recorded by gpsd's users from real
# receivers, BSD-2-Clause, Copyright the GPSD project) from Debian's SOURCE package `gpsd` (bookworm),
# checks the upstream tarball's sha256, and prints the directory holding them. apt-get source needs a
# deb-src line: it is given in a private sources list under the work directory, so the system's apt
# configuration is not touched.
#
#   dir="$(Benchmarks/noise/fetch-gpsd-logs.sh WORKDIR)"      # WORKDIR is created; leaves WORKDIR/gpsd-3.22
set -euo pipefail
work="${1:?usage: fetch-gpsd-logs.sh WORKDIR}"
mkdir -p "$work/lists/partial" "$work/dl"
printf 'deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main\n' \
    >"$work/sources.list"
apt=(-q -o "Dir::Etc::sourcelist=$work/sources.list" -o Dir::Etc::sourceparts=- -o "Dir::State::Lists=$work/lists")
apt-get "${apt[@]}" update >&2
(cd "$work/dl" && apt-get "${apt[@]}" source --download-only gpsd=3.22-4.1+deb12u1 >&2)
(cd "$work/dl" && sha256sum --check --strict - >&2 <<'SUMS'
68d2a04e237a02ce42158ceda462a24afe11eeaa2b13482e94ac7ef66693f3a0  gpsd_3.22.orig.tar.xz
SUMS
)
tar -xJf "$work/dl/gpsd_3.22.orig.tar.xz" -C "$work" gpsd-3.22/test/daemon
echo "$work/gpsd-3.22/test/daemon"
