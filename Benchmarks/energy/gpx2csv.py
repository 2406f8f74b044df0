#!/usr/bin/env python3
"""Writes a GPX track as "seconds,latitude,longitude,unix_time" lines (seconds from the first point),
and a label file (Benchmarks/visits/labels/*.json) as "arrival,departure,latitude,longitude" lines in
the same seconds. Standard library only.

Usage: gpx2csv.py TRACK.gpx OUT.csv [LABELS.json STAYS.csv]
"""
import json
import sys
import xml.etree.ElementTree as ET
from datetime import datetime


def parse_time(text):
    return datetime.fromisoformat(text.strip().replace("Z", "+00:00")).timestamp()


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
        for t, lat, lon in points:
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
