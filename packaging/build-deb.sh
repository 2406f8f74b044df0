#!/bin/sh
# Builds corelocation_VERSION_ARCH.deb for Debian 12: locationd and locationctl (Swift runtime
# linked statically, so the target needs no toolchain), the systemd units, the configuration file,
# a system user `corelocation` and the socket's group.
#
#   packaging/build-deb.sh [VERSION]            # release build, then the package in .build/deb/
#   BINARIES=.build/debug packaging/build-deb.sh   # package binaries already built (quick check)
#
# Needs, to build: libcurl4-openssl-dev besides the test set-up's packages (.ci/run): the static Foundation's
# URLSession links libcurl. Depends lists every library the binaries name (objdump -p … | grep NEEDED):
# SQLite, libdbus (BlueZ, NetworkManager, GeoClue, ModemManager), libmaxminddb (the IP source), libcurl,
# libxml2 (Foundation's XML), zlib.
#
# Install: sudo apt install ./.build/deb/corelocation_*.deb
#          sudo usermod -aG corelocation "$USER"   # then log in again: the socket is 0660
set -eu
cd "$(dirname "$0")/.."
VERSION=${1:-0.1.0}
ARCH=$(dpkg --print-architecture)
OUT=.build/deb
ROOT=$OUT/corelocation_${VERSION}_${ARCH}

if [ -z "${BINARIES:-}" ]; then
    for product in locationd locationctl; do
        swift build -c release --static-swift-stdlib --product "$product"
    done
    BINARIES=$(swift build -c release --show-bin-path)
fi

rm -rf "$ROOT"
install -d "$ROOT/DEBIAN" "$ROOT/usr/bin" "$ROOT/lib/systemd/system" "$ROOT/usr/lib/systemd/user" \
    "$ROOT/etc/corelocation" "$ROOT/usr/share/doc/corelocation" "$ROOT/usr/share/polkit-1/rules.d"
install -m 0755 "$BINARIES/locationd" "$BINARIES/locationctl" "$ROOT/usr/bin/"
install -m 0644 packaging/systemd/locationd.socket packaging/systemd/locationd.service "$ROOT/lib/systemd/system/"
install -m 0644 packaging/systemd/user/locationd.socket packaging/systemd/user/locationd.service \
    packaging/systemd/user/corelocation-agent.service "$ROOT/usr/lib/systemd/user/"
install -m 0644 packaging/locationd.conf "$ROOT/etc/corelocation/locationd.conf"
# ModemManager's location needs polkit's yes for locationd's user (docs/decisions/0035).
install -m 0644 packaging/polkit/50-corelocation-modemmanager.rules "$ROOT/usr/share/polkit-1/rules.d/"
install -m 0644 docs/locationd-protocol.md docs/decisions/0010-locationd.md docs/decisions/0011-locationd-threat-model.md \
    "$ROOT/usr/share/doc/corelocation/"
install -m 0644 NOTICE "$ROOT/usr/share/doc/corelocation/NOTICE"
# Resources the binaries load at run time (the geocoder's gazetteer bundle) sit beside them.
for bundle in "$BINARIES"/*.resources; do
    [ -d "$bundle" ] && cp -R "$bundle" "$ROOT/usr/bin/"
done

SIZE=$(du -sk "$ROOT" | cut -f1)
cat > "$ROOT/DEBIAN/control" <<CONTROL
Package: corelocation
Version: $VERSION
Architecture: $ARCH
Maintainer: swift-corelocation maintainers <maintainers@users.noreply.github.com>
Installed-Size: $SIZE
Depends: libc6 (>= 2.36), libsqlite3-0, libstdc++6, libgcc-s1, libdbus-1-3, libmaxminddb0, libcurl4, libxml2, zlib1g, adduser, systemd
Suggests: gpsd
Section: misc
Priority: optional
Description: Core Location for Linux: locationd and locationctl
 locationd serves location to every app that imports CoreLocation (swift-corelocation):
 one engine and one set of receivers (gpsd, NMEA, IIO), per-app authorization, the
 location services switch. locationctl is its Settings app and a command-line tool.
CONTROL
echo /etc/corelocation/locationd.conf > "$ROOT/DEBIAN/conffiles"

cat > "$ROOT/DEBIAN/postinst" <<'POSTINST'
#!/bin/sh
set -e
if [ "$1" = configure ]; then
    if ! getent group corelocation >/dev/null; then addgroup --system corelocation; fi
    if ! getent passwd corelocation >/dev/null; then
        adduser --system --ingroup corelocation --home /var/lib/corelocation --no-create-home \
            --gecos "Core Location service" corelocation
    fi
    adduser corelocation dialout >/dev/null 2>&1 || true
fi
if [ -d /run/systemd/system ]; then
    systemctl daemon-reload
    systemctl enable locationd.socket >/dev/null
    systemctl restart locationd.socket
    # An upgrade: restart a running daemon; apps reconnect by themselves.
    systemctl try-restart locationd.service
fi
POSTINST
cat > "$ROOT/DEBIAN/prerm" <<'PRERM'
#!/bin/sh
set -e
if [ -d /run/systemd/system ] && [ "$1" = remove ]; then
    systemctl stop locationd.service locationd.socket || true
    systemctl disable locationd.socket >/dev/null || true
fi
PRERM
cat > "$ROOT/DEBIAN/postrm" <<'POSTRM'
#!/bin/sh
set -e
if [ "$1" = purge ]; then
    rm -rf /var/lib/corelocation
    deluser --system corelocation >/dev/null 2>&1 || true
fi
if [ -d /run/systemd/system ]; then systemctl daemon-reload || true; fi
POSTRM
chmod 0755 "$ROOT/DEBIAN/postinst" "$ROOT/DEBIAN/prerm" "$ROOT/DEBIAN/postrm"

dpkg-deb --root-owner-group --build "$ROOT" "$OUT/"
echo "Built $OUT/corelocation_${VERSION}_${ARCH}.deb"
