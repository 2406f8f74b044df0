#!/usr/bin/env python3
"""Seeded circles and query points for the region benchmark.

circles.bin: float64 triples (lat, lon, radius m); points.bin: float64 pairs (lat, lon).
Circle centres are uniform in a 4 x 4 degree box at 44-48 N, 4-8 E (about 445 x 310 km), radii
uniform in 100-300 m. Points: 90 % uniform in the box, 10 % within 400 m of a random centre (so
some queries hit): the headline set. track.bin: a second, track-like set of N_POINTS fixes, as an
engine sees them: a seeded random walk at 1 s steps, 10 m/s, heading changing by a normal 10 degrees
(sd) per step, reflected at the box's edges. Usage: make_data.py OUT_DIR N_CIRCLES N_POINTS SEED
"""
import math
import sys

import numpy as np


def main():
    out, n, m, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    rng = np.random.default_rng(seed)
    lat = rng.uniform(44, 48, n)
    lon = rng.uniform(4, 8, n)
    radius = rng.uniform(100, 300, n)
    np.stack([lat, lon, radius], axis=1).astype("<f8").tofile(f"{out}/circles-{n}.bin")
    near = m // 10
    plat = rng.uniform(44, 48, m)
    plon = rng.uniform(4, 8, m)
    pick = rng.integers(0, n, near)
    dist = rng.uniform(0, 400, near)
    bearing = rng.uniform(0, 2 * math.pi, near)
    plat[:near] = lat[pick] + dist * np.cos(bearing) / 111_132.0
    plon[:near] = lon[pick] + dist * np.sin(bearing) / (111_320.0 * np.cos(np.radians(lat[pick])))
    np.stack([plat, plon], axis=1).astype("<f8").tofile(f"{out}/points-{n}.bin")
    track = np.random.default_rng(seed + 1)
    tlat = np.empty(m)
    tlon = np.empty(m)
    lat_now, lon_now, heading = 46.0, 6.0, track.uniform(0, 2 * math.pi)
    for i in range(m):
        tlat[i], tlon[i] = lat_now, lon_now
        heading += track.normal(0, math.radians(10))
        lat_now += 10 * math.cos(heading) / 111_132.0
        lon_now += 10 * math.sin(heading) / (111_320.0 * math.cos(math.radians(lat_now)))
        if not 44 < lat_now < 48:
            lat_now = min(max(lat_now, 44), 48)
            heading = math.pi - heading
        if not 4 < lon_now < 8:
            lon_now = min(max(lon_now, 4), 8)
            heading = -heading
    np.stack([tlat, tlon], axis=1).astype("<f8").tofile(f"{out}/track-{n}.bin")


if __name__ == "__main__":
    main()
