#!/usr/bin/env python3
"""Write N seeded random point pairs as little-endian float64 quadruples (lat1 lon1 lat2 lon2).

Mix: 85% uniform on the sphere, 5% nearly antipodal, 5% on the equator, 5% coincident points.
Usage: make_pairs.py OUT.bin [N] [SEED]
"""
import math
import random
import sys
from array import array


def main():
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 42)
    lat = lambda: math.degrees(math.asin(2 * rng.random() - 1))
    lon = lambda: rng.uniform(-180, 180)
    values = array("d")
    for _ in range(n):
        u = rng.random()
        if u < 0.85:
            values.extend((lat(), lon(), lat(), lon()))
        elif u < 0.90:
            a, b = lat(), lon()
            values.extend((a, b, -a + rng.uniform(-0.5, 0.5), b + 180 - rng.uniform(0, 1)))
        elif u < 0.95:
            values.extend((0.0, lon(), 0.0, lon()))
        else:
            a, b = lat(), lon()
            values.extend((a, b, a, b))
    if sys.byteorder != "little":
        values.byteswap()
    with open(out, "wb") as f:
        values.tofile(f)


if __name__ == "__main__":
    main()
