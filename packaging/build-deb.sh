#!/bin/sh
# Builds, for Debian 12, in .build/deb/:
#   corelocation_VERSION_ARCH.deb         locationd and locationctl, one multi-call binary under both names as hard
#                                         links (stripped; the Swift runtime linked statically, so the target needs
#                                         no toolchain; docs/decisions/0101), the gazetteer, the systemd units, manual
#                                         pages, the configuration file; a system user `corelocation` and the
#                                         socket's group made by the maintainer scripts
#   corelocation-dbgsym_VERSION_ARCH.deb  its debug symbols under /usr/lib/debug/.build-id/ (as Debian's
#                                         automatic -dbgsym packages), for gdb and Swift's backtracer
#
#   packaging/build-deb.sh [VERSION]              # release build, then both packages (VERSION: packaging/debian/changelog's)
#   BINARIES=DIR packaging/build-deb.sh           # package binaries already built (DIR holds corelocation, the
#                                                 # multi-call binary, and
#                                                 # swift-corelocation_CoreLocationGeocoding.resources/)
#   lintian --info .build/deb/corelocation_*.deb  # no error: the one tag left, embedded-library zlib (swift-nio-extras'
#                                                 # copy, which AsyncHTTPClient links), is overridden with its reason
#                                                 # (packaging/debian/lintian-overrides; docs/decisions/0070)
#
# Layout (docs/decisions/0070): the binary in /usr/bin as `locationd` and `locationctl`, two hard links to one file
# (docs/decisions/0101: one binary is half the size of two; hard links, not symbolic ones, because the daemon
# recognises locationctl by the path the kernel reports for a process's executable, which for a hard link is the name
# it was started by and for a symbolic link the one target; dpkg-deb's tar keeps the link, dpkg makes it again); the gazetteer in /usr/share/swift-corelocation/, one of the
# places the geocoder looks (Gazetteer+Loading.swift), not a SwiftPM bundle beside the binaries (lintian:
# subdir-in-usr-bin). GRDB's bundle holds only Apple's PrivacyInfo.xcprivacy, which nothing reads: not shipped.
# Manual pages: swift-argument-parser's generate-manual tool (the GenerateManual plugin's) run on the built binaries.
# Depends: dpkg-shlibdeps on the binaries (D-Bus and MaxMind are spoken or read by the binaries themselves; what
# remains besides glibc's, libstdc++'s and libgcc's is SQLite (GRDB), libcurl and libxml2 (the static Foundation's
# FoundationNetworking and FoundationXML) and zlib (SwiftPM links -lz for swift-nio-extras, which uses none of it).
#
# Needs: the Swift toolchain; dpkg-dev (dpkg-shlibdeps, dpkg-parsechangelog); binutils (strip, objcopy);
# libcurl4-openssl-dev (libcurl.so, which the static FoundationNetworking links: without it `-lcurl` fails).
#
# Install: sudo apt install ./.build/deb/corelocation_*.deb
#          sudo usermod -aG corelocation "$USER"   # then log in again: the socket is 0660
set -eu
cd "$(dirname "$0")/.."
CHANGELOG=packaging/debian/changelog
VERSION=${1:-$(dpkg-parsechangelog -l "$CHANGELOG" -S Version)}
ARCH=$(dpkg --print-architecture)
OUT=.build/deb
PKG=$OUT/corelocation_${VERSION}_${ARCH}
DBG=$OUT/corelocation-dbgsym_${VERSION}_${ARCH}
# Reproducible: file dates, man page dates and gzip headers come from the changelog's date (a VERSION other than the
# changelog's gets an entry of its own, dated now, below).
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
    if [ "$VERSION" = "$(dpkg-parsechangelog -l "$CHANGELOG" -S Version)" ]; then
        SOURCE_DATE_EPOCH=$(dpkg-parsechangelog -l "$CHANGELOG" -S Timestamp)
    else
        SOURCE_DATE_EPOCH=$(date +%s)
    fi
fi
export SOURCE_DATE_EPOCH
DAY=$(date -u -d "@$SOURCE_DATE_EPOCH" +%F)

if [ -z "${BINARIES:-}" ]; then
    swift build -c release --static-swift-stdlib --product corelocation
    BINARIES=$(swift build -c release --static-swift-stdlib --show-bin-path)
fi
GAZETTEER=$BINARIES/swift-corelocation_CoreLocationGeocoding.resources/gazetteer.bin
[ -f "$GAZETTEER" ] || { echo "build-deb.sh: $GAZETTEER is missing" >&2; exit 1; }

# The GenerateManual plugin builds every product of the package before it runs its tool; `--help` builds the tool
# alone, which is then run on the two binaries.
if [ -z "${GENERATE_MANUAL:-}" ]; then
    swift package plugin generate-manual --help >/dev/null
    GENERATE_MANUAL=$(find .build -path '*/debug/generate-manual-tool' -type f | head -n 1)
fi
[ -x "$GENERATE_MANUAL" ] || { echo "build-deb.sh: generate-manual-tool not found" >&2; exit 1; }

rm -rf "$PKG" "$DBG"
install -d "$PKG/DEBIAN" "$PKG/usr/bin" "$PKG/lib/systemd/system" "$PKG/usr/lib/systemd/user" \
    "$PKG/etc/corelocation" "$PKG/usr/share/doc/corelocation" "$PKG/usr/share/polkit-1/rules.d" \
    "$PKG/usr/share/swift-corelocation" "$PKG/usr/share/man/man1" "$PKG/usr/share/man/man8" "$DBG/DEBIAN"

# Stripped as dh_strip strips; the symbols go to the -dbgsym package, named by build id. One binary, installed as
# locationd and hard-linked as locationctl: it runs as the one or the other by the name it is started under.
BINARY=$BINARIES/corelocation
[ -f "$BINARY" ] || { echo "build-deb.sh: $BINARY is missing" >&2; exit 1; }
id=$(readelf -n "$BINARY" | awk '/Build ID:/ { print $3 }')
[ -n "$id" ] || { echo "build-deb.sh: $BINARY has no build id" >&2; exit 1; }
prefix=$(echo "$id" | cut -c1-2)
install -d "$DBG/usr/lib/debug/.build-id/$prefix"
objcopy --only-keep-debug --compress-debug-sections=zlib "$BINARY" \
    "$DBG/usr/lib/debug/.build-id/$prefix/$(echo "$id" | cut -c3-).debug"
chmod 0644 "$DBG/usr/lib/debug/.build-id/$prefix/"*.debug
strip --remove-section=.comment --remove-section=.note --strip-unneeded -o "$PKG/usr/bin/locationd" "$BINARY"
chmod 0755 "$PKG/usr/bin/locationd"
ln "$PKG/usr/bin/locationd" "$PKG/usr/bin/locationctl"
install -m 0644 "$GAZETTEER" "$PKG/usr/share/swift-corelocation/gazetteer.bin"

install -m 0644 packaging/systemd/locationd.socket packaging/systemd/locationd.service "$PKG/lib/systemd/system/"
install -m 0644 packaging/systemd/user/locationd.socket packaging/systemd/user/locationd.service \
    packaging/systemd/user/corelocation-agent.service packaging/systemd/user/corelocation-report.service \
    "$PKG/usr/lib/systemd/user/"
install -m 0644 packaging/locationd.conf "$PKG/etc/corelocation/locationd.conf"
# The one lintian tag that cannot be mended here, with its reason (docs/decisions/0070).
install -D -m 0644 packaging/debian/lintian-overrides "$PKG/usr/share/lintian/overrides/corelocation"
# GeoClue2 (docs/decisions/0074): the bus policy that lets locationd's user own the name (inert until
# `geoclue = system`), and an activation file a user may choose instead of geoclue's (not installed where the bus
# reads it: geoclue's own stays in charge unless the user switches).
install -d "$PKG/usr/share/dbus-1/system.d" "$PKG/usr/share/swift-corelocation/dbus"
install -m 0644 packaging/dbus/corelocation-geoclue.conf "$PKG/usr/share/dbus-1/system.d/"
install -m 0644 packaging/dbus/org.freedesktop.GeoClue2.service "$PKG/usr/share/swift-corelocation/dbus/"
# ModemManager's location needs polkit's yes for locationd's user (docs/decisions/0035).
install -m 0644 packaging/polkit/50-corelocation-modemmanager.rules "$PKG/usr/share/polkit-1/rules.d/"

# Manual pages from the commands' own help (section 8: locationd is a system service; 1: locationctl).
pages=$OUT/man
rm -rf "$pages" && mkdir -p "$pages"
"$GENERATE_MANUAL" "$PKG/usr/bin/locationd" --section 8 --date "$DAY" --output-directory "$pages"
"$GENERATE_MANUAL" "$PKG/usr/bin/locationctl" --section 1 --date "$DAY" --output-directory "$pages"
# The tool keeps the help's blank lines, which roff reads as empty input lines (groff warns, lintian with it): each
# becomes the paragraph macro it stands for.
sed 's/^$/.Pp/' "$pages/locationd.8" | gzip -9n > "$PKG/usr/share/man/man8/locationd.8.gz"
sed 's/^$/.Pp/' "$pages/locationctl.1" | gzip -9n > "$PKG/usr/share/man/man1/locationctl.1.gz"

doc=$PKG/usr/share/doc/corelocation
install -m 0644 packaging/debian/copyright NOTICE "$doc/"
install -m 0644 docs/locationd-protocol.md docs/decisions/0010-locationd.md docs/decisions/0011-locationd-threat-model.md \
    "$doc/"
# A native package's changelog is changelog.gz. A VERSION other than the changelog's gets an entry of its own.
changelog=$OUT/changelog
if [ "$VERSION" != "$(dpkg-parsechangelog -l "$CHANGELOG" -S Version)" ]; then
    {
        printf 'corelocation (%s) bookworm; urgency=medium\n\n  * Built from %s.\n\n' \
            "$VERSION" "$(git rev-parse --short HEAD 2>/dev/null || echo 'a working tree')"
        printf ' -- swift-corelocation maintainers <maintainers@users.noreply.github.com>  %s\n\n' \
            "$(date -u -R -d "@$SOURCE_DATE_EPOCH")"
        cat "$CHANGELOG"
    } > "$changelog"
else
    cp "$CHANGELOG" "$changelog"
fi
gzip -9n -c "$changelog" > "$doc/changelog.gz"

install -m 0755 packaging/debian/postinst packaging/debian/prerm packaging/debian/postrm "$PKG/DEBIAN/"
echo /etc/corelocation/locationd.conf > "$PKG/DEBIAN/conffiles"

# Depends: what dpkg-shlibdeps reads off the binaries (it wants a debian/control to run in).
shlibs=$OUT/shlibdeps
rm -rf "$shlibs" && mkdir -p "$shlibs/debian"
printf 'Source: corelocation\n\nPackage: corelocation\nArchitecture: any\n' > "$shlibs/debian/control"
here=$(pwd)
DEPENDS=$(cd "$shlibs" && dpkg-shlibdeps -O -e"$here/$PKG/usr/bin/locationd" |
    sed -n 's/^shlibs:Depends=//p')

installed_size() { du -sk --exclude=DEBIAN "$1" | cut -f1; }
cat > "$PKG/DEBIAN/control" <<CONTROL
Package: corelocation
Version: $VERSION
Architecture: $ARCH
Maintainer: swift-corelocation maintainers <maintainers@users.noreply.github.com>
Installed-Size: $(installed_size "$PKG")
Depends: $DEPENDS, adduser
Recommends: systemd
Suggests: gpsd, corelocation-dbgsym
Section: misc
Priority: optional
Homepage: https://github.com/swift-corelocation/swift-corelocation
Description: Core Location for Linux: locationd and locationctl
 locationd serves location to every app that imports CoreLocation
 (swift-corelocation): one engine and one set of receivers (gpsd, NMEA,
 IIO), per-app authorization, the location services switch. locationctl
 is its Settings app and a command-line tool.
CONTROL
cat > "$DBG/DEBIAN/control" <<CONTROL
Package: corelocation-dbgsym
Source: corelocation
Version: $VERSION
Architecture: $ARCH
Maintainer: swift-corelocation maintainers <maintainers@users.noreply.github.com>
Installed-Size: $(installed_size "$DBG")
Depends: corelocation (= $VERSION)
Section: debug
Priority: optional
Auto-Built-Package: debug-symbols
Build-Ids: $id
Description: debug symbols for corelocation
CONTROL
# As dh_strip's -dbgsym packages: the documentation directory is the main package's.
install -d "$DBG/usr/share/doc"
ln -s corelocation "$DBG/usr/share/doc/corelocation-dbgsym"
for root in "$PKG" "$DBG"; do
    (cd "$root" && find . -path ./DEBIAN -prune -o -type f -print | sed 's|^\./||' | LC_ALL=C sort |
        xargs md5sum > DEBIAN/md5sums)
    find "$root" -newermt "@$SOURCE_DATE_EPOCH" -exec touch --no-dereference -d "@$SOURCE_DATE_EPOCH" {} +
    dpkg-deb --root-owner-group -Zxz --build "$root" "$OUT/" >/dev/null
done
# The two names must be one file in the package: dpkg-deb's tar stores the file once and the other name as a hard
# link entry (names sorted, so `locationd link to ./usr/bin/locationctl`), and dpkg installs it as a hard link again.
dpkg-deb --fsys-tarfile "$PKG.deb" | tar -tvf - |
    grep -Eq '^h.* \./usr/bin/(locationd link to \./usr/bin/locationctl|locationctl link to \./usr/bin/locationd)$' || {
    echo "build-deb.sh: usr/bin/locationd and usr/bin/locationctl are not hard links of one file in $PKG.deb" >&2
    exit 1
}
echo "Built $OUT/corelocation_${VERSION}_${ARCH}.deb ($(du -k "$PKG.deb" | cut -f1) KiB, installs $(installed_size "$PKG") KiB)"
echo "Built $OUT/corelocation-dbgsym_${VERSION}_${ARCH}.deb ($(du -k "$DBG.deb" | cut -f1) KiB)"
