#!/usr/bin/env bash
# CI's packaging step (.ci/run; issue 37, docs/decisions/0070): the .deb a user installs, built and installed for
# real. Fails when the package does not build, when lintian reports an error, or when packaging/test-install.sh
# finds a check failing in the booted Debian 12 it installs the package into. A machine that cannot run that test
# (no systemd-nspawn container boots, Debian's mirror unreachable: test-install.sh's status 77) is said in a banner
# with the command to run it elsewhere, and the step passes: the build and lintian still ran.
#
#   bash packaging/ci-package.sh                 # as .ci/run does (root, or sudo for apt-get and the install test)
#   BINARIES=DIR bash packaging/ci-package.sh    # package binaries already built (see build-deb.sh)
#
# Takes, measured on a 2-core machine shared with other builds (docs/decisions/0070): the release build 27 min (none
# is made elsewhere in CI), the rest of build-deb.sh 4-5 min, lintian 30 s, test-install.sh 65 s with its Debian tree
# made (+ 155 s once, for debootstrap; the tree is kept in /var/tmp/corelocation-install-test).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi

# dpkg-dev, binutils, libcurl4-openssl-dev: build-deb.sh; lintian; debootstrap, systemd-container: test-install.sh.
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends dpkg-dev binutils \
    libcurl4-openssl-dev lintian debootstrap systemd-container >/dev/null

bash packaging/build-deb.sh
version="$(dpkg-parsechangelog -l packaging/debian/changelog -S Version)"
deb=".build/deb/corelocation_${version}_$(dpkg --print-architecture).deb"

lintian --info "$deb" | tee .build/deb/lintian.txt
errors="$(grep -c '^E: ' .build/deb/lintian.txt || true)"
if [ "$errors" -gt 0 ]; then
    echo "ci-package.sh: lintian reports $errors error(s) for $deb" >&2
    exit 1
fi

status=0
$SUDO bash packaging/test-install.sh "$deb" || status=$?
case "$status" in
    0) ;;
    77)
        {
            echo "################################################################################"
            echo "# NOT RUN: the .deb was not installed into a booted Debian 12 (packaging/test-install.sh,"
            echo "# status 77: this machine cannot run it; the reason is printed above). Run it where"
            echo "# systemd-nspawn can boot a container, as root:"
            echo "#     packaging/build-deb.sh && sudo packaging/test-install.sh"
            echo "################################################################################"
        } >&2
        ;;
    *)
        echo "ci-package.sh: the install test failed (status $status)" >&2
        exit 1
        ;;
esac
