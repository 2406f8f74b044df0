#!/usr/bin/env python3
"""Writes a GPX track as "seconds,latitude,longitude,unix_time" lines (seconds from the first point),
and a label file (Benchmarks/visits/labels/*.json) as "arrival,departure,latitude,longitude" lines in
the same seconds. Standard library only.

The track is resampled to one fix a second, as a receiver that is on gives them: between two
recorded points up to MAX_GAP seconds apart the position is interpolated linearly (loggers keep a
point every few seconds, or when the position changed); a longer gap stays a gap (no signal, or
the logger was off), during which a receiver that is on still costs power but yields nothing.

Usage: gpx2csv.py TRACK.gpx OUT.csv [LABELS.json STAYS.csv]
"""
import json
import sys
import xml.etree.ElementTree as ET
from datetime import datetime


def parse_time(text):
    return datetime.fromisoformat(text.strip().replace("Z", "+00:00")).timestamp()


MAX_GAP = 60.0


def resample(points):
    out = [points[0]]
    for (t0, lat0, lon0), (t1, lat1, lon1) in zip(points, points[1:]):
        gap = t1 - t0
        if 1 < gap <= MAX_GAP:
            steps = int(gap)
            for k in range(1, steps):
                f = k / gap
                out.append((t0 + k, lat0 + f * (lat1 - lat0), lon0 + f * (lon1 - lon0)))
        out.append((t1, lat1, lon1))
    return out


def main():
    track, out = sys.argv[1], sys.argv[2]
    points = []
    for element in ET.parse(track).getroot().iter():
        if element.tag.endswith("}trkpt") or element.tag == "trkpt":
            time = next((c.text for c in element if c.tag.endswith("time")), None)
            if time:
                points.append((parse_time(time), float(element.get("lat")), float(element.get("lon"))))
    if not points:
        sys.exit(f"{track}: no timed track points")
    start = points[0][0]
    with open(out, "w") as f:
        for t, lat, lon in resample(points):
            f.write(f"{t - start:.3f},{lat:.7f},{lon:.7f},{t:.3f}\n")
    if len(sys.argv) > 4:
        with open(sys.argv[3]) as f:
            labels = json.load(f)
        stays = labels["stays"] if isinstance(labels, dict) else labels
        with open(sys.argv[4], "w") as f:
            for stay in stays:
                f.write(
                    f"{parse_time(stay['arrival']) - start:.1f},{parse_time(stay['departure']) - start:.1f},"
                    f"{stay['latitude']},{stay['longitude']}\n"
                )


if __name__ == "__main__":
    main()
