#!/usr/bin/env python3
"""Writes walk.nmea: a hand-designed 1 Hz NMEA 0183 stream (u-blox-style GP talker), 10 epochs.

Each epoch: RMC, GGA, GSA, GSV x3, GST. The numbers are chosen by hand (a straight run north-east
near Munich at 37.9 kn, HDOP 0.9, VDOP 1.5) and only the checksums are computed here, so the
integration tests can work out every expected value from the sentence fields themselves.
"""
import functools, sys

def sentence(body):
    checksum = functools.reduce(lambda a, c: a ^ ord(c), body, 0)
    return "$%s*%02X" % (body, checksum)

SATS = [(4, 61, 137, 45), (5, 33, 295, 40), (9, 22, 48, 38), (12, 70, 210, 47), (24, 15, 99, 31),
        (25, 41, 177, 44), (29, 55, 318, 46), (31, 12, 260, 29), (2, 8, 20, 0), (18, 5, 330, 0)]
USED = [4, 5, 9, 12, 24, 25, 29, 31]

def epoch(i):
    t = "1200%02d.00" % i
    lat = "4807.%04d" % (380 + 100 * i)
    lon = "01131.%04d" % (50 * i)
    hdop = 0.9
    alt = 545.4 + 0.1 * i
    out = [
        "GPRMC,%s,A,%s,N,%s,E,37.9,18.4,150324,3.3,E,A" % (t, lat, lon),
        "GPGGA,%s,%s,N,%s,E,1,08,%.1f,%.1f,M,46.9,M,," % (t, lat, lon, hdop, alt),
        "GPGSA,A,3,%s,,,,,1.8,%.1f,1.5" % (",".join("%02d" % s for s in USED), hdop),
    ]
    for part in range(3):
        group = SATS[4 * part:4 * part + 4]
        fields = ",".join("%02d,%02d,%03d,%s" % (p, e, a, "%02d" % s if s else "") for p, e, a, s in group)
        out.append("GPGSV,3,%d,10,%s" % (part + 1, fields))
    out.append("GPGST,%s,1.5,1.2,0.9,45.0,1.2,0.9,2.1" % t)
    return [sentence(b) for b in out]

lines = ["# walk.nmea: hand-written NMEA 0183 fixture for swift-corelocation's gpsd integration tests.",
         "# Device: none (designed by hand, checksums computed by make_fixture.py). Date: 2024-03-15 12:00:00-12:00:09 UTC.",
         "# Place: near Munich, 48.1173 N 11.5167 E. Licence: same as the project (written for it)."]
for i in range(10):
    lines += epoch(i)
sys.stdout.write("\r\n".join(lines) + "\r\n")
