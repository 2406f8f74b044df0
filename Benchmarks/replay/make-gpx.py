#!/usr/bin/env python3
"""Writes a GPX 1.1 track of N points one second apart to stdout (same path as make-nmea.py)."""
import sys
from datetime import datetime, timedelta, timezone

def main():
    count = int(sys.argv[1])
    out = sys.stdout
    start = datetime(2024, 1, 1, tzinfo=timezone.utc)
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write('<gpx version="1.1" creator="make-gpx.py" xmlns="http://www.topografix.com/GPX/1/1">\n')
    out.write("<trk><name>bench</name><trkseg>\n")
    for i in range(count):
        step = (i % 100000) * 1e-6
        time = (start + timedelta(seconds=i)).strftime("%Y-%m-%dT%H:%M:%SZ")
        out.write(f'<trkpt lat="{45.0 + step:.7f}" lon="{13.5 + step:.7f}"><ele>120.0</ele>'
                  f"<time>{time}</time></trkpt>\n")
    out.write("</trkseg></trk></gpx>\n")

if __name__ == "__main__":
    main()
