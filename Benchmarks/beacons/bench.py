#!/usr/bin/env python3
"""Beacon ranging benchmark (Benchmarks/beacons/README.md).

Generates a seeded synthetic recording — 20 iBeacons at 10 Hz each, beacon k at a known distance between 1 and
5 m, RSSI from the log-distance model (measured power -59 dBm at 1 m, n = 2) plus 4 dB Gaussian shadowing — and
ranges it in real time with `locationctl beacons --simulate … --format json`, timestamping each result line as it
arrives. Reports: the cadence (interval between results: median and worst deviation from 1 s), the distance
error of `accuracy` (median |d̂ − d| / d over all beacon-cycles, and per true distance), beside a naive baseline
(path-loss distance of each single reading, no averaging), and the process's CPU use and peak memory.

usage: bench.py LOCATIONCTL [--seconds 120]
       bench.py BEACON-RANGE --standin [--seconds 120]   (standin/: the same session code, alone)
"""
import json
import math
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time

UUID = "83256b7478d043a4826905f9dc8a44ba"
POWER = -59


def distance_of(minor):
    return 1 + 4 * (minor - 1) / 19


def generate(path, seconds, rng):
    naive = []
    with open(path, "w") as out:
        out.write("# synthetic: 20 beacons at 10 Hz, log-distance n=2, 4 dB shadowing, seed 13\n")
        for step in range(int(seconds * 10)):
            for minor in range(1, 21):
                t = step * 0.1 + minor * 0.004
                d = distance_of(minor)
                rssi = round(POWER - 20 * math.log10(d) + rng.gauss(0, 4))
                naive.append(abs(10 ** ((POWER - rssi) / 20) - d) / d)
                data = "0215" + UUID + "0001" + "%04x" % minor + "c5"
                out.write(json.dumps({"t": round(t, 3), "address": "5A:00:00:00:%02X:%02X" % (minor, step // 50),
                                      "rssi": rssi, "manufacturer": {"004c": data}}) + "\n")
    return naive


def main():
    tool = sys.argv[1]
    seconds = float(sys.argv[sys.argv.index("--seconds") + 1]) if "--seconds" in sys.argv else 120.0
    rng = random.Random(13)
    directory = tempfile.mkdtemp()
    recording = os.path.join(directory, "synthetic.jsonl")
    naive = generate(recording, seconds, rng)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    if "--standin" in sys.argv:
        command = [tool, recording, str(seconds)]
    else:
        command = [tool, "beacons", "--simulate", recording, "--format", "json", "--duration", str(seconds)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    arrivals, results = [], []
    for line in process.stdout:
        arrivals.append(time.monotonic())
        results.append(json.loads(line))
    process.wait()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    intervals = [b - a for a, b in zip(arrivals, arrivals[1:])]
    deviations = [abs(i - 1) for i in intervals]
    errors, by_distance = [], {}
    for result in results:
        for beacon in result["beacons"]:
            if beacon["accuracy"] < 0:
                continue
            d = distance_of(beacon["minor"])
            e = abs(beacon["accuracy"] - d) / d
            errors.append(e)
            by_distance.setdefault(round(d), []).append(e)
    print("results: %d over %.0f s" % (len(results), seconds))
    print("cadence: median interval %.4f s, median |dev| %.1f ms, worst |dev| %.1f ms" % (
        statistics.median(intervals), 1000 * statistics.median(deviations), 1000 * max(deviations)))
    print("distance (ranging, cycle mean): median relative error %.1f %% (%d beacon-cycles)" % (
        100 * statistics.median(errors), len(errors)))
    for d in sorted(by_distance):
        print("  ~%d m: median %.1f %%" % (d, 100 * statistics.median(by_distance[d])))
    print("distance (naive, single reading): median relative error %.1f %%" % (100 * statistics.median(naive)))
    print("cpu: %.2f s for %.0f s = %.2f %% of one core; peak RSS %.1f MiB" % (
        cpu, seconds, 100 * cpu / seconds, after.ru_maxrss / 1024))


if __name__ == "__main__":
    main()
