#!/usr/bin/env python3
"""EGM96 geoid heights: PROJ (through pyproj, same egm96_15.gtx grid) against our Swift results.

Usage: compare.py POINTS.bin SWIFT.bin REPETITIONS GTX  (run by run.sh inside a venv with pyproj).
Writes nothing; prints PROJ's vectorised time per look-up and the max / RMS |Swift − PROJ|.
"""
import statistics
import sys
import time

import numpy as np
import pyproj

points = np.fromfile(sys.argv[1], dtype="<f8").reshape(-1, 2)
swift = np.fromfile(sys.argv[2], dtype="<f8")
reps, gtx = int(sys.argv[3]), sys.argv[4]
lat, lon = points[:, 0].copy(), points[:, 1].copy()
transformer = pyproj.Transformer.from_pipeline(f"+proj=vgridshift +grids={gtx} +multiplier=1")


def proj_all():
    return transformer.transform(lon, lat, np.zeros_like(lat))[2]


proj = proj_all()
times = []
for _ in range(reps):
    start = time.perf_counter_ns()
    proj_all()
    times.append((time.perf_counter_ns() - start) / len(lat))
d = np.abs(swift - proj)
print(f"PROJ {pyproj.proj_version_str} via pyproj {pyproj.__version__}, vectorised: {statistics.median(times):.1f} ns/look-up")
print(f"max |Swift - PROJ| {d.max() * 1000:.2f} mm, RMS {np.sqrt((d ** 2).mean()) * 1000:.2f} mm, over {len(d)} points")
worst = int(d.argmax())
print(f"worst at lat {lat[worst]:.6f} lon {lon[worst]:.6f}: Swift {swift[worst]:.4f} PROJ {proj[worst]:.4f}")
