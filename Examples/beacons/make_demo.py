#!/usr/bin/env python3
"""Regenerates demo.jsonl (seeded, so the file is reproducible): python3 Examples/beacons/make_demo.py"""
import json
import math
import os
import random

random.seed(13)
uuid = "83256b7478d043a4826905f9dc8a44ba"
lines = ["# locationctl beacons demo: synthetic, seed 13, 10 s at 10 Hz (docs/beacons.md).",
         "# lobby 83256B74-78D0-43A4-8269-05F9DC8A44BA 1 1 at 0.8 m; desk 1 2 at 6 m (rotating address);",
         "# one Eddystone-UID beacon (not listed by ranging). Measured power -59 dBm at 1 m."]


def rssi(d):
    return round(-59 - 20 * math.log10(d) + random.gauss(0, 3))


for i in range(100):
    t = round(i * 0.1 + 0.05, 2)
    lines.append(json.dumps({"t": t, "address": "C0:FF:EE:00:00:01", "rssi": rssi(0.8),
                             "manufacturer": {"004c": "0215" + uuid + "0001" + "0001" + "c5"}}))
    lines.append(json.dumps({"t": round(t + 0.02, 2), "address": "5A:00:00:00:00:%02X" % (i // 20), "rssi": rssi(6),
                             "manufacturer": {"004c": "0215" + uuid + "0001" + "0002" + "c5"}}))
    if i % 5 == 0:
        lines.append(json.dumps({"t": round(t + 0.04, 2), "address": "C0:FF:EE:00:00:03", "rssi": rssi(2),
                                 "service": {"feaa": "00f8e157bd5df90aad1dc2fb0000000000010000"}}))
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "demo.jsonl"), "w") as out:
    out.write("\n".join(lines) + "\n")
