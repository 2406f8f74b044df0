#!/usr/bin/env python3
"""Writes an NMEA log of N one-second epochs (GGA + RMC) to stdout. Seeded, deterministic."""
import sys

def checksum(body):
    value = 0
    for c in body.encode():
        value ^= c
    return f"{value:02X}"

def main():
    count = int(sys.argv[1])
    out = sys.stdout
    lat, lon = 45.0, 13.5
    for i in range(count):
        t = i % 86400
        hh, mm, ss = t // 3600, (t // 60) % 60, t % 60
        day = 1 + (i // 86400) % 28
        la = lat + (i % 100000) * 1e-6
        lo = lon + (i % 100000) * 1e-6
        lat_s = f"{int(la):02d}{(la - int(la)) * 60:07.4f}"
        lon_s = f"{int(lo):03d}{(lo - int(lo)) * 60:07.4f}"
        gga = f"GPGGA,{hh:02d}{mm:02d}{ss:02d}.00,{lat_s},N,{lon_s},E,1,08,0.9,120.0,M,46.9,M,,"
        rmc = f"GPRMC,{hh:02d}{mm:02d}{ss:02d}.00,A,{lat_s},N,{lon_s},E,1.9,54.7,{day:02d}0124,,,A"
        out.write(f"${gga}*{checksum(gga)}\r\n${rmc}*{checksum(rmc)}\r\n")

if __name__ == "__main__":
    main()
