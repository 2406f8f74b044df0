#!/usr/bin/env python3
"""Writes a seeded NMEA 0183 log of mixed sentence types for the decoding benchmark.

Usage: make_log.py OUT SENTENCES SEED

Each 1 Hz epoch has the shapes real receivers emit (field layouts as in the recorded fixtures under
Tests/CoreLocationSourcesTests/Fixtures/nmea: SiRF IV's GGA/GSA/RMC, Furuno GT-88's NMEA 4.11 GNS/GSA/GSV
with system and signal IDs, B&G Zeus2's GLL/VTG/ZDA) plus GST: RMC, VTG, GGA, GNS, GSA x2, GSV x3,
GLL, GST, ZDA = 12 sentences. A vehicle drives a seeded random walk; checksums are correct.
"""
import random
import sys


def checksum(body):
    value = 0
    for char in body.encode("ascii"):
        value ^= char
    return "%02X" % value


def sentence(body):
    return "$%s*%s\r\n" % (body, checksum(body))


def lat_field(lat):
    hemisphere = "N" if lat >= 0 else "S"
    lat = abs(lat)
    degrees = int(lat)
    return "%02d%07.4f,%s" % (degrees, (lat - degrees) * 60, hemisphere)


def lon_field(lon):
    hemisphere = "E" if lon >= 0 else "W"
    lon = abs(lon)
    degrees = int(lon)
    return "%03d%07.4f,%s" % (degrees, (lon - degrees) * 60, hemisphere)


def ids(satellites):
    """The 12 satellite-ID fields of GSA, empty past the used ones."""
    return ",".join(["%02d" % s for s in satellites] + [""] * (12 - len(satellites)))


def main():
    out, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    lat, lon, alt = 52.85, 5.31, 12.0
    course, speed = 230.0, 5.0
    seconds = 9 * 3600
    day, month, year = 20, 8, 2018
    written = 0
    with open(out, "w", newline="") as f:
        while written < count:
            hh, mm, ss = seconds // 3600 % 24, seconds // 60 % 60, seconds % 60
            t = "%02d%02d%02d.00" % (hh, mm, ss)
            date = "%02d%02d%02d" % (day, month, year % 100)
            course = (course + rng.uniform(-5, 5)) % 360
            speed = max(0.0, speed + rng.uniform(-0.3, 0.3))
            lat += speed * 0.514444 * 1e-5 * rng.uniform(-1, 1)
            lon += speed * 0.514444 * 1e-5 * rng.uniform(-1, 1)
            alt += rng.uniform(-0.2, 0.2)
            hdop = rng.choice([0.6, 0.8, 1.1, 1.3])
            used = rng.randint(6, 12)
            gps = sorted(rng.sample(range(1, 33), 6))
            gal = sorted(rng.sample(range(1, 37), 5))
            epoch = [
                "GNRMC,%s,A,%s,%s,%.2f,%.2f,%s,,,A,V" % (t, lat_field(lat), lon_field(lon), speed, course, date),
                "GPVTG,%.1f,T,%.1f,M,%.1f,N,%.1f,K,A" % (course, (course - 1.4) % 360, speed, speed * 1.852),
                "GPGGA,%s,%s,%s,1,%02d,%.1f,%.1f,M,46.8,M,," % (t, lat_field(lat), lon_field(lon), used, hdop, alt),
                "GNGNS,%s,%s,%s,AAN,%02d,%.1f,%.1f,46.8,,,V" % (t, lat_field(lat), lon_field(lon), used, hdop, alt),
                "GNGSA,A,3,%s,%.1f,%.1f,%.1f,1" % (ids(gps), hdop * 1.4, hdop, hdop),
                "GNGSA,A,3,%s,%.1f,%.1f,%.1f,3" % (ids(gal), hdop * 1.4, hdop, hdop),
            ]
            sats = gps + [33 + i for i in range(6)]
            for part in range(3):
                group = sats[part * 4:(part + 1) * 4]
                fields = ",".join(
                    "%02d,%02d,%03d,%02d" % (s, rng.randint(5, 89), rng.randint(0, 359), rng.randint(15, 50))
                    for s in group)
                epoch.append("GPGSV,3,%d,12,%s,1" % (part + 1, fields))
            epoch += [
                "GPGLL,%s,%s,%s,A,A" % (lat_field(lat), lon_field(lon), t),
                "GNGST,%s,%.1f,%.2f,%.2f,%.1f,%.2f,%.2f,%.2f" % (
                    t, rng.uniform(5, 40), rng.uniform(1, 4), rng.uniform(0.5, 2), rng.uniform(0, 180),
                    rng.uniform(0.5, 3), rng.uniform(0.5, 3), rng.uniform(1, 5)),
                "GPZDA,%s,%02d,%02d,%04d,00,00" % (t, day, month, year),
            ]
            for body in epoch:
                if written == count:
                    break
                f.write(sentence(body))
                written += 1
            seconds += 1
            if seconds % 86400 == 0:
                day += 1
                if day > 28:
                    day, month = 1, month % 12 + 1


if __name__ == "__main__":
    main()
