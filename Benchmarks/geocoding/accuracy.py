#!/usr/bin/env python3
"""Accuracy of GeocodingBench's answers on the seeded points:
  - country: against the Natural Earth 1:10m admin-0 polygons themselves (shapely point-in-polygon),
    on the points Natural Earth puts on land; reverse_geocoder's nearest-city country for context;
  - time zone: against timezonefinder (PyPI) on the same land points, as identical IANA names and as
    the same UTC offset on 2026-01-15 and 2026-07-15 (which forgives aliases such as Asia/Calcutta).
Usage: accuracy.py NE_ZIP SWIFT.tsv RG.tsv"""
import csv
import datetime
import importlib.util
import os
import sys
import zipfile
import zoneinfo

import shapely
from timezonefinder import TimezoneFinder

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "shp", os.path.join(here, "..", "..", "scripts", "gazetteer-shapefile.py"))
shp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(shp)


def load_countries(zip_path):
    z = zipfile.ZipFile(zip_path)
    records = shp.read_dbf(z.read("ne_10m_admin_0_countries_deu.dbf"))
    shapes = shp.read_shp_polygons(z.read("ne_10m_admin_0_countries_deu.shp"))
    geoms, codes = [], []
    for record, rings in zip(records, shapes):
        code = record["ISO_A2_EH"].strip("\0 ")
        code = code if len(code) == 2 and code.isalpha() else ""
        # Even-odd over all rings, as the shapefile's outer rings and holes intend.
        geom = None
        for ring in rings:
            poly = shapely.Polygon(ring)
            if not poly.is_valid:
                poly = shapely.make_valid(poly)
            geom = poly if geom is None else shapely.symmetric_difference(geom, poly)
        geoms.append(geom)
        codes.append(code)
    return geoms, codes


def offsets(name):
    try:
        zone = zoneinfo.ZoneInfo(name)
    except Exception:
        return None
    return tuple(datetime.datetime(2026, m, 15, 12, tzinfo=zone).utcoffset() for m in (1, 7))


def main():
    ne_zip, swift_tsv, rg_tsv = sys.argv[1:4]
    swift = list(csv.DictReader(open(swift_tsv), delimiter="\t"))
    rgrows = list(csv.DictReader(open(rg_tsv), delimiter="\t"))
    geoms, codes = load_countries(ne_zip)
    tree = shapely.STRtree(geoms)
    pts = shapely.points([float(r["lon"]) for r in swift], [float(r["lat"]) for r in swift])
    pairs = tree.query(pts, predicate="intersects")
    ne = {}
    for point_index, geom_index in zip(*pairs):
        # Overlaps (enclaves without holes): keep the smaller feature, as the Swift index does.
        current = ne.get(point_index)
        if current is None or geoms[geom_index].area < geoms[current].area:
            ne[point_index] = geom_index
    land = sorted(ne)
    agree = sum(1 for i in land if swift[i]["country"] == codes[ne[i]])
    rg_agree = sum(1 for i in land if rgrows[i]["country"] == codes[ne[i]])
    sea = [i for i in range(len(swift)) if i not in ne]
    coastal = sum(1 for i in sea if swift[i]["country"])
    print(f"points {len(swift)}, on land per Natural Earth {len(land)}, at sea {len(sea)}")
    print(f"country agreement with Natural Earth (land): swift {agree}/{len(land)} = {100 * agree / len(land):.3f} %")
    print(f"  reverse_geocoder (nearest city): {rg_agree}/{len(land)} = {100 * rg_agree / len(land):.3f} %")
    print(f"  sea points given a country by the 3 km coastal rule: {coastal}")
    mismatches = [(swift[i]["lat"], swift[i]["lon"], swift[i]["country"], codes[ne[i]])
                  for i in land if swift[i]["country"] != codes[ne[i]]]
    for m in mismatches[:10]:
        print("  mismatch", m)

    tf = TimezoneFinder()
    same_name = same_offset = compared = 0
    for i in land:
        expected = tf.timezone_at(lng=float(swift[i]["lon"]), lat=float(swift[i]["lat"]))
        got = swift[i]["timezone"]
        if not expected or not got:
            continue
        compared += 1
        same_name += expected == got
        same_offset += offsets(expected) is not None and offsets(expected) == offsets(got)
    no_tz = sum(1 for i in land if not swift[i]["timezone"])
    print(f"time zone vs timezonefinder on {compared} land points with both answers "
          f"({no_tz} land points have none from swift, mostly Antarctica):")
    print(f"  same IANA name {100 * same_name / compared:.2f} %, same UTC offsets (Jan and Jul) "
          f"{100 * same_offset / compared:.2f} %")


if __name__ == "__main__":
    main()
