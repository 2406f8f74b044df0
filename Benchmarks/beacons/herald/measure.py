#!/usr/bin/env python3
"""Proximity classification on a public recording of RSSI at known distances (Benchmarks/beacons/herald/README.md).

Reads SAMPLE (time,rssi,distance rows of the Herald project's calibration data, distance in cm), turns it into
a recorded-advertisement file (docs/beacons.md) of ONE iBeacon whose measured power is the sample's mean RSSI at
100 cm, rounded (how beacon vendors calibrate: the mean RSSI at 1 m), ranges it with the library's
BeaconRangingSession on the recording's own timeline (`beacon-range RECORDING SECONDS --fast`), and compares the
proximity and distance of each 1 s ranging cycle with a naive baseline: every single reading turned into a
distance by d = 10^((P1 - RSSI) / (10 n)), n = 2, and classified by the same thresholds.

Truth: the known distance, classified by the thresholds of PathLossModel.proximity: immediate below 0.5 m,
near below 3 m, far from 3 m.

usage: measure.py BEACON-RANGE SAMPLE.csv [--keep RECORDING.jsonl]
"""
import atexit
import collections
import csv
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile

UUID = "83256b7478d043a4826905f9dc8a44ba"
GAP = 10  # seconds of silence between two distances' segments (> the ranger's 5 s retention)
CLASSES = ["immediate", "near", "far", "unknown"]


def proximity(metres):
    if metres is None or metres < 0:
        return "unknown"
    return "immediate" if metres < 0.5 else "near" if metres < 3 else "far"


def load(path):
    """Segments in file order: [(distance_cm, [(datetime, rssi), ...]), ...]."""
    segments = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            distance = int(row["distance"])
            when = datetime.datetime.strptime(row["time"], "%Y-%m-%d %H:%M:%S")
            if not segments or segments[-1][0] != distance:
                segments.append((distance, []))
            segments[-1][1].append((when, float(row["rssi"])))
    return segments


def recording(segments, power, path):
    """Writes the replay; returns per segment (start, end) on the replay's timeline: cycles that end in
    (start, end] hold that segment's readings (each source second is one cycle)."""
    windows = []
    start = 2
    power_byte = "%02x" % (power & 0xFF)
    data = "0215" + UUID + "0001" + "0001" + power_byte
    with open(path, "w") as out:
        out.write("# Herald calibration sample replayed as one iBeacon, measured power %d dBm\n" % power)
        for distance, rows in segments:
            first = rows[0][0]
            by_second = collections.OrderedDict()
            for when, rssi in rows:
                by_second.setdefault(int((when - first).total_seconds()), []).append(rssi)
            for second, values in by_second.items():
                for k, rssi in enumerate(values):
                    t = start + second + (k + 0.5) / len(values)
                    out.write(json.dumps({"t": round(t, 4), "address": "5A:00:00:00:00:13", "rssi": int(rssi),
                                          "manufacturer": {"004c": data}}) + "\n")
            end = start + max(by_second) + 1
            windows.append((start, end))
            start = end + GAP
    return windows


def main():
    tool, sample = sys.argv[1], sys.argv[2]
    segments = load(sample)
    at_1m = [rssi for distance, rows in segments if distance == 100 for _, rssi in rows]
    power = round(statistics.mean(at_1m))
    path = sys.argv[sys.argv.index("--keep") + 1] if "--keep" in sys.argv else tempfile.mktemp(suffix=".jsonl")
    if "--keep" not in sys.argv:
        atexit.register(lambda: os.path.exists(path) and os.remove(path))
    windows = recording(segments, power, path)
    end = windows[-1][1] + 1
    lines = subprocess.run([tool, path, str(end), "--fast"], capture_output=True, text=True, check=True).stdout
    cycles = [json.loads(line) for line in lines.splitlines()]

    ours = collections.defaultdict(list)  # segment index -> [(proximity, accuracy)]
    for cycle in cycles:
        t = cycle["t"]
        for index, (start, stop) in enumerate(windows):
            if start < t <= stop + 1e-6:
                # A cycle in a silence longer than the 5 s retention lists no beacon: counted as unknown.
                beacons = cycle["beacons"] or [{"proximity": "unknown", "accuracy": -1}]
                for beacon in beacons:
                    ours[index].append((beacon["proximity"], beacon["accuracy"]))
    total_cycles = sum(len(v) for v in ours.values())
    expected_cycles = sum(stop - start for start, stop in windows)

    print("sample: %s, %d rows, %d distances; measured power (mean RSSI at 100 cm, %d readings) %.2f -> %d dBm"
          % (sample, sum(len(r) for _, r in segments), len(segments), len(at_1m), statistics.mean(at_1m), power))
    print("ranging: %d cycles inside the segments (%d expected), %d result lines in all" % (
        total_cycles, expected_cycles, len(cycles)))
    print()
    print("| distance | truth | readings | cycles | ours: imm / near / far / unknown | ours correct (of cycles "
          "with a reading) | baseline: imm / near / far | baseline correct | median rel. error: ours | baseline |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    confusion = {"ours": collections.Counter(), "baseline": collections.Counter()}
    for index, (distance, rows) in enumerate(segments):
        metres = distance / 100
        truth = proximity(metres)
        cyc = ours[index]
        oc = collections.Counter(p for p, _ in cyc)
        base = [10 ** ((power - rssi) / 20) for _, rssi in rows]
        bc = collections.Counter(proximity(d) for d in base)
        for p, n in oc.items():
            confusion["ours"][(truth, p)] += n
        for p, n in bc.items():
            confusion["baseline"][(truth, p)] += n
        if metres > 0:
            e_ours = [abs(a - metres) / metres for _, a in cyc if a >= 0]
            e_base = [abs(d - metres) / metres for d in base]
            errors = "%.0f %% | %.0f %%" % (100 * statistics.median(e_ours), 100 * statistics.median(e_base))
        else:
            errors = "(0 m: median estimate %.2f m) | (%.2f m)" % (
                statistics.median([a for _, a in cyc if a >= 0]), statistics.median(base))
        heard = len(cyc) - oc["unknown"]
        print("| %d cm | %s | %d | %d | %d / %d / %d / %d | %.0f %% (%.0f %%) | %d / %d / %d | %.0f %% | %s |" % (
            distance, truth, len(rows), len(cyc), oc["immediate"], oc["near"], oc["far"], oc["unknown"],
            100 * oc[truth] / len(cyc), 100 * oc[truth] / heard if heard else 0, bc["immediate"], bc["near"],
            bc["far"], 100 * bc[truth] / len(rows), errors))
    for name in ("ours", "baseline"):
        c = confusion[name]
        unit = "cycles" if name == "ours" else "readings"
        print()
        print("%s (%s), truth in rows:" % ("ours: BeaconRangingSession, 1 s cycles" if name == "ours"
                                            else "naive baseline: each reading alone", unit))
        print()
        print("| truth \\ reported | immediate | near | far | unknown | correct |")
        print("|---|---|---|---|---|---|")
        right = total = 0
        for truth in ("immediate", "near", "far"):
            n = sum(c[(truth, p)] for p in CLASSES)
            if n == 0:
                continue
            right += c[(truth, truth)]
            total += n
            print("| %s | %s | %.1f %% |" % (truth, " | ".join(str(c[(truth, p)]) for p in CLASSES),
                                            100 * c[(truth, truth)] / n))
        heard = total - sum(c[(t, "unknown")] for t in ("immediate", "near", "far"))
        print("| all | | | | | %.1f %% (%d of %d; %.1f %% of the %d with a reading) |" % (
            100 * right / total, right, total, 100 * right / heard if heard else 0, heard))


if __name__ == "__main__":
    main()
