#!/usr/bin/env python3
"""Writes N seeded points uniform on the sphere as float64 (lat, lon) pairs.
Usage: make_points.py OUT.bin N SEED"""
import math
import random
import struct
import sys

out, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
with open(out, "wb") as f:
    for _ in range(n):
        lat = math.degrees(math.asin(rng.uniform(-1.0, 1.0)))
        lon = rng.uniform(-180.0, 180.0)
        f.write(struct.pack("<dd", lat, lon))
