#!/usr/bin/env python3
"""How much fixes keep a direction (decision 0064's fourth section): the length-weighted mean cosine between
successive moves, each from a fix to the first at least STEP seconds later — BoundedPolicy.persistence, computed
independently — over windows of W seconds of one kind (indoor stay i, outdoor stay o, moving m; jump fixes left
out) of the urban tracks of one half of Benchmarks/noise/split.txt, and over the wide windows (spread 15-120 m
RMS) of that half's real tracks (Benchmarks/visits/tracks). Standard library.

    python3 Benchmarks/reporter/policy/persistence.py [HALF] [W] [STEP]    # default: tuning 150 15
"""
import csv
import datetime as dt
import glob
import math
import os
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "..")
R = 6371008.8


def plane(lat0, lon0, lat, lon):
    return math.radians(lon - lon0) * R * math.cos(math.radians(lat0)), math.radians(lat - lat0) * R


def persistence(points, step):
    """points: (t, x, y); nan with fewer than two moves."""
    chosen = [points[0]]
    for p in points[1:]:
        if p[0] - chosen[-1][0] >= step:
            chosen.append(p)
    moves = [(b[1] - a[1], b[2] - a[2]) for a, b in zip(chosen, chosen[1:])]
    along = lengths = 0.0
    for a, b in zip(moves, moves[1:]):
        along += a[0] * b[0] + a[1] * b[1]
        lengths += math.hypot(*a) * math.hypot(*b)
    return along / lengths if lengths > 0 else float("nan")


def windows(points, width):
    i = 0
    while i < len(points):
        j = i
        while j < len(points) and points[j][0] - points[i][0] < width:
            j += 1
        if j >= len(points):
            return
        yield points[i:j]
        i = j


def quantiles(values):
    values = sorted(v for v in values if v == v)
    if not values:
        return "none"
    q = lambda p: values[min(len(values) - 1, int(p * len(values)))]  # noqa: E731
    return f"n {len(values)}: p1 {q(.01):.2f} p5 {q(.05):.2f} p50 {q(.5):.2f} p95 {q(.95):.2f} p99 {q(.99):.2f}"


def main():
    half = sys.argv[1] if len(sys.argv) > 1 else "tuning"
    width = float(sys.argv[2]) if len(sys.argv) > 2 else 150
    step = float(sys.argv[3]) if len(sys.argv) > 3 else 15
    split = {}
    for line in open(os.path.join(ROOT, "Benchmarks/noise/split.txt")):
        fields = line.split()
        if fields and not fields[0].startswith("#"):
            split[fields[1]] = fields[0]
    kinds = {"i": [], "o": [], "m": []}
    for path in sorted(glob.glob(os.path.join(ROOT, "Benchmarks/noise/tracks/synth-*.csv"))):
        if split.get(os.path.basename(path)[:-4]) != half:
            continue
        rows = [r for r in csv.reader(open(path)) if r and r[0][0].isdigit()]
        lat0, lon0 = float(rows[0][1]), float(rows[0][2])
        points = [(float(r[0]), *plane(lat0, lon0, float(r[1]), float(r[2])), r[6]) for r in rows]
        for window in windows(points, width):
            window = [p for p in window if p[3] != "j"]
            labels = {p[3] for p in window}
            if len(labels) == 1 and len(window) > 5:
                kinds[labels.pop()].append(persistence(window, step))
    names = {"i": "indoor stays", "o": "outdoor stays", "m": "moving"}
    for kind, values in kinds.items():
        print(f"{half} urban, {names[kind]}, {width:.0f} s windows: {quantiles(values)}")
    for path in sorted(glob.glob(os.path.join(ROOT, "Benchmarks/visits/tracks/*.gpx"))):
        name = os.path.basename(path)[:-4]
        if split.get(name) != half:
            continue
        points = []
        for element in ET.parse(path).iter():
            if element.tag.endswith("trkpt"):
                times = [c for c in element if c.tag.endswith("time")]
                if times:
                    t = dt.datetime.fromisoformat(times[0].text.strip().replace("Z", "+00:00")).timestamp()
                    points.append((t, float(element.get("lat")), float(element.get("lon"))))
        lat0, lon0 = points[0][1], points[0][2]
        points = [(t, *plane(lat0, lon0, a, b)) for t, a, b in points]
        wide = []
        for window in windows(points, width):
            mx = sum(p[1] for p in window) / len(window)
            my = sum(p[2] for p in window) / len(window)
            spread = math.sqrt(sum((p[1] - mx) ** 2 + (p[2] - my) ** 2 for p in window) / len(window))
            if 15 < spread < 120 and len(window) > 5:
                wide.append(persistence(window, step))
        print(f"{half} real, {name}, wide {width:.0f} s windows: {quantiles(wide)}")


if __name__ == "__main__":
    main()
