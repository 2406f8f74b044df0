#!/usr/bin/env python3
"""Writes N seeded WMM test points (float64 LE lat, lon, height km, decimal year) to a file:
latitude uniform in area on the sphere (the poles themselves excluded by NOAA's vectorised code, so
|lat| ≤ 89.99), longitude uniform in [-180, 180), height uniform in [-1, 850] km, date uniform in
[2025.0, 2030.0). Usage: make_points.py OUT N SEED"""
import math
import random
import struct
import sys

out, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
with open(out, "wb") as f:
    for _ in range(n):
        lat = math.degrees(math.asin(rng.uniform(-1, 1)))
        lat = max(-89.99, min(89.99, lat))
        f.write(struct.pack("<4d", lat, rng.uniform(-180, 180), rng.uniform(-1, 850), rng.uniform(2025.0, 2030.0)))
