#!/usr/bin/env python3
"""Times two NMEA decoders as whole processes on the same work: the log file in, JSON lines out (to a
file), alternating, REPETITIONS times each; prints each one's median and checks that both wrote the
same fixes (one TPV per epoch; time, latitude and longitude equal to 1e-7 degrees).
Usage: processes.py LOG SENTENCES REPETITIONS OUT_DIR NMEADECODE"""
import json
import subprocess
import sys
import time


def run(command, log, out):
    with open(log, "rb") as stdin, open(out, "wb") as stdout:
        start = time.perf_counter()
        subprocess.run(command, stdin=stdin, stdout=stdout, check=True)
        return time.perf_counter() - start


def fixes(path):
    result = []
    with open(path) as f:
        for line in f:
            report = json.loads(line)
            if report.get("class") == "TPV" and "lat" in report:
                result.append((report["time"], report["lat"], report["lon"]))
    return result


def main():
    log, n, reps, out, ours = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
    sides = {"swift-decode": [ours, "-"], "gpsdecode": ["gpsdecode", "-j"]}
    times = {name: [] for name in sides}
    for _ in range(reps):
        for name, command in sides.items():
            times[name].append(run(command, log, f"{out}/{name}.jsonl"))
    a, b = fixes(f"{out}/swift-decode.jsonl"), fixes(f"{out}/gpsdecode.jsonl")
    same = len(a) == len(b) and all(
        x[0] == y[0] and abs(x[1] - y[1]) <= 1e-7 and abs(x[2] - y[2]) <= 1e-7 for x, y in zip(a, b))
    for name in sides:
        t = sorted(times[name])
        median = t[len(t) // 2]
        print(f"{name} process {n} sentences {int(n / median)} sentences/s (median of {reps}; "
              f"{median * 1000:.0f} ms)")
    print(f"fixes: swift-decode {len(a)}, gpsdecode {len(b)}; same time/lat/lon: {'yes' if same else 'NO'}")
    if not same:
        for x, y in list(zip(a, b))[:3]:
            print("  ", x, y, file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
