#!/usr/bin/env python3
"""shapely (GEOS) STRtree on the same circles and points, for comparison with CircleIndex.

Circles become 64-gon polygons in (lon, lat) degrees, built on a local tangent plane (a circle of
radius r metres: dlat = r cos t / 111132, dlon = r sin t / (111320 cos lat)); that is shapely's
usual way to hold geofences and differs from the exact geodesic circle by well under 1 m at these
radii. Per query: tree.query(point, predicate="intersects"), one point at a time (what a location
engine does per fix), timed individually; plus the vectorised bulk query over all points (GEOS's own
loop, without CPython's per-call overhead: the like-for-like figure).
Prints: n, median ns per single query, mean ns per point in bulk, bytes per circle (tracemalloc of
the tree plus polygons is not available for GEOS memory, so RSS delta is reported), total hits.
Usage: strtree.py DIR N SINGLE_QUERIES [SET ...]   (SINGLE_QUERIES 0: every point, as RegionsBench)   (SET: points, the headline set, by default; track)
"""
import resource
import sys
import time

import numpy as np
import shapely


def rss_kib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4


def main():
    d, n, single = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    circles = np.fromfile(f"{d}/circles-{n}.bin", dtype="<f8").reshape(-1, 3)
    before = rss_kib()
    t = np.linspace(0, 2 * np.pi, 64, endpoint=False)
    lat, lon, r = circles[:, 0:1], circles[:, 1:2], circles[:, 2:3]
    xs = lon + r * np.sin(t) / (111_320.0 * np.cos(np.radians(lat)))
    ys = lat + r * np.cos(t) / 111_132.0
    rings = np.stack([xs, ys], axis=2)
    polygons = shapely.polygons(rings)
    tree = shapely.STRtree(polygons)
    after = rss_kib()
    for point_set in sys.argv[4:] or ["points"]:
        points = np.fromfile(f"{d}/{point_set}-{n}.bin", dtype="<f8").reshape(-1, 2)
        geoms = shapely.points(points[:, 1], points[:, 0])
        times = []
        hits_single = 0
        for g in geoms[:single] if single > 0 else geoms:
            t0 = time.perf_counter_ns()
            found = tree.query(g, predicate="intersects")
            times.append(time.perf_counter_ns() - t0)
            hits_single += len(found)
        t0 = time.perf_counter_ns()
        c0 = time.thread_time_ns()
        pairs = tree.query(geoms, predicate="intersects")
        bulk_cpu = (time.thread_time_ns() - c0) / len(geoms)
        bulk = (time.perf_counter_ns() - t0) / len(geoms)
        print(f"shapely-strtree n={n} set={point_set} single_median_ns={np.median(times):.0f} bulk_mean_ns={bulk:.0f} bulk_cpu_ns={bulk_cpu:.0f} "
              f"bytes_per_circle={(after - before) * 1024 / n:.0f} hits={pairs.shape[1]} "
              f"single_queries={min(single, len(geoms)) if single > 0 else len(geoms)} hits_single={hits_single}")


if __name__ == "__main__":
    main()
