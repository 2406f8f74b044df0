#!/usr/bin/env python3
"""Writes the two chart-plotter-style NMEA fixtures whose sentences of one second disagree
(decision 0014), and nothing else: the expected values come from gpsd, not from this script.

    python3 make-disagreeing-epochs.py            # writes nmea/disagreeing-*.nmea
    for f in disagreeing-gga-gll-rmc disagreeing-rmc-gll-gga; do
        grep -v '^#' nmea/$f.nmea | gpsdecode -j > gpsd/$f-gpsd-3.22.jsonl
    done

Layout of a marine network's GPS (as in bandg-zeus2.nmea): GGA, GLL and RMC each computed from a
slightly different solution of the same second, so their positions differ by 0.1–0.4 m. Positions
follow a boat at about 2.5 m/s; the per-sentence offsets are seeded (random.Random(14)).
"""
import random

HEADER = {
    "gga-gll-rmc": "GGA, GLL, GSA, RMC, VTG each second (B&G / Simrad plotter order)",
    "rmc-gll-gga": "RMC, VTG, GLL, GGA, GSA each second (the order reversed: GGA comes last)",
}


def checksum(body):
    c = 0
    for ch in body:
        c ^= ord(ch)
    return "$%s*%02X" % (body, c)


def coordinate(value, width):
    degrees = int(abs(value))
    minutes = (abs(value) - degrees) * 60
    return "%0*d%07.4f" % (width, degrees, minutes)


def main():
    rng = random.Random(14)
    for name, note in HEADER.items():
        order = name.split("-")
        lines = [
            "# Device: none; synthesised by make-disagreeing-epochs.py in the layout of a chart plotter's",
            "#   GPS output (%s); GGA, GLL and RMC of one second disagree by 0.1-0.4 m" % note,
            "# Place/date: IJsselmeer, Netherlands (52.85N 5.31E), 2026-11-23 (made up)",
            "# Expected: ../gpsd/disagreeing-%s-gpsd-3.22.jsonl, gpsd 3.22 gpsdecode -j of this file" % name,
            "# Licence: CC0 (generated for this project)",
        ]
        lat, lon = 52.85, 5.31
        for second in range(8):
            t = "0947%02d.00" % (30 + second)
            lat -= 2.5 * 0.6 / 111_250
            lon -= 2.5 * 0.8 / 67_300
            offsets = {k: (rng.uniform(-0.00016, 0.00016), rng.uniform(-0.00025, 0.00025)) for k in order}

            def at(kind):
                dlat, dlon = offsets[kind]
                return coordinate(lat + dlat / 60, 2) + ",N," + coordinate(lon + dlon / 60, 3) + ",E"

            sentences = {
                "gga": "GPGGA,%s,%s,1,12,0.60,-4.0,M,46.8,M,," % (t, at("gga")),
                "gll": "GPGLL,%s,%s,A,A" % (at("gll"), t),
                "rmc": "GPRMC,%s,A,%s,4.9,233.1,231126,1.4,E,A" % (t, at("rmc")),
            }
            gsa = "GPGSA,A,3,07,08,10,16,20,21,26,27,29,,,,1.10,0.60,0.90"
            vtg = "GPVTG,233.1,T,231.7,M,4.9,N,9.1,K,A"
            for kind in order:
                lines.append(checksum(sentences[kind]))
                if kind == "gll" and order[0] == "gga":
                    lines.append(checksum(gsa))
                if kind == "rmc" and order[0] == "gga":
                    lines.append(checksum(vtg))
                if kind == "rmc" and order[0] == "rmc":
                    lines.append(checksum(vtg))
            if order[0] == "rmc":
                lines.append(checksum(gsa))
        with open("disagreeing-%s.nmea" % name, "w", newline="") as out:
            out.write("\r\n".join(lines) + "\r\n")


if __name__ == "__main__":
    main()
