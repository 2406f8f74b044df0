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
    # Matched by time: gpsd reports from its second epoch on (it first learns the cycle), so ours may
    # have more; every gpsdecode fix must be one of ours with the same position.
    ours_by_time = {t: (lat, lon) for t, lat, lon in a}
    same = len(b) > 0 and all(
        t in ours_by_time and abs(ours_by_time[t][0] - lat) <= 1e-7 and abs(ours_by_time[t][1] - lon) <= 1e-7
        for t, lat, lon in b) and len(a) - len(b) <= 2
    for name in sides:
        t = sorted(times[name])
        median = t[len(t) // 2]
        print(f"{name} process {n} sentences {int(n / median)} sentences/s (median of {reps}; "
              f"{median * 1000:.0f} ms)")
    print(f"fixes: swift-decode {len(a)}, gpsdecode {len(b)}; every gpsdecode fix among ours with the same lat/lon: {'yes' if same else 'NO'}")
    if not same:
        for t, lat, lon in b[:3]:
            print("  ", t, lat, lon, ours_by_time.get(t), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
