#!/usr/bin/env python3
"""Keeps the points Natural Earth's 1:10m admin-0 polygons put on land (shapely point-in-polygon, the same
polygons and test as accuracy.py): the like-for-like set, where both geocoders must search for a place.
Usage: land_points.py NE_ZIP POINTS.bin LAND.bin"""
import struct
import sys

import shapely

from accuracy import load_countries


def main():
    ne_zip, points_path, out_path = sys.argv[1:4]
    data = open(points_path, "rb").read()
    points = list(struct.iter_unpack("<dd", data))
    geoms, _ = load_countries(ne_zip)
    tree = shapely.STRtree(geoms)
    pts = shapely.points([lon for _, lon in points], [lat for lat, _ in points])
    hits = tree.query(pts, predicate="intersects")
    on_land = sorted(set(hits[0].tolist()))
    with open(out_path, "wb") as f:
        for i in on_land:
            f.write(struct.pack("<dd", *points[i]))
    print(f"   {len(on_land)} of {len(points)} points on land (Natural Earth 1:10m)")


if __name__ == "__main__":
    main()
