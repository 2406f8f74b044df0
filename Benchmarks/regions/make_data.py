#!/usr/bin/env python3
"""Seeded circles and query points for the region benchmark.

circles.bin: float64 triples (lat, lon, radius m); points.bin: float64 pairs (lat, lon).
Circle centres are uniform in a 4 x 4 degree box at 44-48 N, 4-8 E (about 445 x 310 km), radii
uniform in 100-300 m. Points: 90 % uniform in the box, 10 % within 400 m of a random centre (so
some queries hit). Usage: make_data.py OUT_DIR N_CIRCLES N_POINTS SEED
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


if __name__ == "__main__":
    main()
