#!/usr/bin/env python3
"""Generates N cells in OpenCelliD's CSV layout (seed 18) and KEYS look-up keys: 90 % present, 10 % absent.
Usage: generate.py N CSV KEYS [KEYS_COUNT]"""
import random, sys

n, csv_path, keys_path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
count = int(sys.argv[4]) if len(sys.argv) > 4 else 100000
rng = random.Random(18)
mccs = [208, 214, 222, 234, 262, 310, 311, 404, 440, 460, 505, 724]
radios = [("GSM", 0.25, 0xFFFF, 0xFFFF), ("UMTS", 0.2, 0xFFFF, 0xFFFFFFF), ("LTE", 0.45, 0xFFFF, 0xFFFFFFF),
          ("NR", 0.1, 0xFFFFFF, 0xFFFFFFFFF)]
seen = set()
sample = []
with open(csv_path, "w") as f:
    f.write("radio,mcc,net,area,cell,unit,lon,lat,range,samples,changeable,created,updated,averageSignal\n")
    written = 0
    while written < n:
        x = rng.random()
        for radio, share, max_area, max_cell in radios:
            if x < share:
                break
            x -= share
        key = (radio, rng.choice(mccs), rng.randrange(1, 100), rng.randrange(1, max_area), rng.randrange(1, max_cell))
        if key in seen:
            continue
        seen.add(key)
        written += 1
        if len(sample) < count * 9 // 10 and rng.random() < max(0.001, count / n):
            sample.append(key)
        f.write("%s,%d,%d,%d,%d,0,%.6f,%.6f,%d,%d,1,1459692732,1700000000,0\n" % (
            key + (rng.uniform(-180, 180), rng.uniform(-60, 70), rng.randrange(100, 20000), rng.randrange(1, 500))))
misses = []
while len(misses) < count - len(sample):
    key = ("LTE", rng.choice(mccs), rng.randrange(1, 100), rng.randrange(1, 0xFFFF), rng.randrange(1, 0xFFFFFFF))
    if key not in seen:
        misses.append(key)
keys = sample + misses
rng.shuffle(keys)
with open(keys_path, "w") as f:
    f.write("\n".join(",".join(str(v) for v in k) for k in keys) + "\n")
