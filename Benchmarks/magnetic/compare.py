#!/usr/bin/env python3
"""WMM2025 side by side: NOAA's wmm-calculator (the reference), pygeomag, and our Swift results.

Usage: compare.py POINTS.bin SWIFT.bin REPETITIONS   (run by run.sh inside a venv holding
wmm-calculator==1.4.4 and pygeomag==1.1.0). Times each Python implementation per point (NOAA's
vectorised over all points at once, and point by point; pygeomag point by point), then prints the
largest |difference| of each quantity between Swift and NOAA, and between pygeomag and NOAA.
"""
import os
import statistics
import sys
import time

import numpy as np
import pygeomag
from pygeomag import GeoMag
from wmm import wmm_calc

points = np.fromfile(sys.argv[1], dtype="<f8").reshape(-1, 4)
swift = np.fromfile(sys.argv[2], dtype="<f8").reshape(-1, 7)
reps = int(sys.argv[3])
lat, lon, h, t = points.T
n = len(points)
names = ["D", "I", "H", "F", "X", "Y", "Z"]


def noaa_all():
    m = wmm_calc()
    m.setup_env(lat, lon, h, unit="km", msl=False)
    m.setup_time(dyear=t)
    return np.column_stack([m.get_Bdec(), m.get_Binc(), m.get_Bh(), m.get_Bf(), m.get_Bx(), m.get_By(), m.get_Bz()])


def median_ns(fn, count, repetitions):
    times = []
    for _ in range(repetitions):
        start = time.perf_counter_ns()
        fn()
        times.append((time.perf_counter_ns() - start) / count)
    return statistics.median(times)


import warnings
warnings.simplefilter("ignore")
noaa = noaa_all()
noaa_vector_ns = median_ns(noaa_all, n, reps)

sub = min(n, 500)  # the per-point loops are slow; time them on the first points only


def noaa_scalar():
    m = wmm_calc()
    for i in range(sub):
        m.setup_env(lat[i], lon[i], h[i], unit="km", msl=False)
        m.setup_time(dyear=t[i])
        m.get_Bdec()


coefficients = os.path.join(os.path.dirname(pygeomag.__file__), "wmm", "WMM_2025.COF")
gm = GeoMag(coefficients_file=coefficients, high_resolution=False)


def pygeomag_all(count):
    out = np.empty((count, 7))
    for i in range(count):
        r = gm.calculate(glat=lat[i], glon=lon[i], alt=h[i], time=t[i])
        out[i] = (r.d, r.i, r.h, r.f, r.x, r.y, r.z)
    return out


pg = pygeomag_all(n)
noaa_scalar_ns = median_ns(noaa_scalar, sub, max(1, reps // 3))
pygeomag_ns = median_ns(lambda: pygeomag_all(sub), sub, max(1, reps // 3))

print(f"points {n}")
print(f"NOAA wmm-calculator, vectorised (numpy): {noaa_vector_ns:10.1f} ns/eval")
print(f"NOAA wmm-calculator, point by point:     {noaa_scalar_ns:10.1f} ns/eval")
print(f"pygeomag, point by point:                {pygeomag_ns:10.1f} ns/eval")


def diff(a, b):
    d = np.abs(a - b)
    d[:, 0] = np.abs((a[:, 0] - b[:, 0] + 180) % 360 - 180)
    return d


for label, other in (("Swift - NOAA", swift), ("pygeomag - NOAA", pg)):
    d = diff(other, noaa)
    worst = ", ".join(f"{name} {d[:, k].max():.2e}" for k, name in enumerate(names))
    print(f"max |{label}|: {worst}   (D, I in degrees; others nT)")
