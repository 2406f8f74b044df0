#!/usr/bin/env python3
"""Beacon ranging benchmark (Benchmarks/beacons/README.md).

Generates a seeded synthetic recording — 20 iBeacons at 10 Hz each, beacon k at a known distance between 1 and
5 m, RSSI from the log-distance model (measured power -59 dBm at 1 m, n = 2) plus 4 dB Gaussian shadowing — and
ranges it in real time with `locationctl beacons --simulate … --format json`, timestamping each result line as it
arrives. Reports: the cadence (interval between results: median and worst deviation from 1 s), the distance
error of `accuracy` (median |d̂ − d| / d over all beacon-cycles, and per true distance), beside a naive baseline
(path-loss distance of each single reading, no averaging), and the process's CPU use and peak memory.

usage: bench.py LOCATIONCTL [--seconds 120]
       bench.py BEACON-RANGE --standin [--seconds 120] [--loop-seconds 60] [--monitor-seconds 280]
         (standin/: the same session code, alone. --loop-seconds: the recording is that long and played in a
         loop, so the replay's memory is constant and the RSS sampled every second over the run is the
         ranger's: flat or not. --monitor-seconds: afterwards, a second run monitors a beacon region over
         cycles of 70 s (the beacon heard 10 s, silent 10 s, heard 10 s, silent 40 s): entry after the first
         advert, exit after the last, and no exit across the 10 s gap, all on the wall clock.)
"""
import atexit
import json
import math
import threading
import os
import random
import resource
import shutil
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


def option(name, default):
    return float(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def sample_rss(pid, samples, stop):
    """VmRSS of `pid` (KiB) once a second, with the time since the start, until `stop` is set."""
    start = time.monotonic()
    while not stop.wait(1.0):
        try:
            with open("/proc/%d/status" % pid) as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        samples.append((time.monotonic() - start, int(line.split()[1])))
        except OSError:
            return


def monitor_recording(path, cycles):
    """Cycles of 70 s: heard 10 s (10 Hz), silent 10 s, heard 10 s, silent 40 s. Returns the cycles' first
    and last advert times."""
    marks = []
    with open(path, "w") as out:
        out.write("# synthetic: one beacon, 70 s cycles: heard 10 s, gap 10 s, heard 10 s, silent 40 s\n")
        for cycle in range(cycles):
            base = 2 + 70 * cycle
            times = [base + k * 0.1 for k in range(100)] + [base + 20 + k * 0.1 for k in range(100)]
            marks.append((times[0], times[-1]))
            for t in times:
                data = "0215" + UUID + "0001" + "0001" + "c5"
                out.write(json.dumps({"t": round(t, 3), "address": "5A:00:00:00:00:01", "rssi": -65,
                                      "manufacturer": {"004c": data}}) + "\n")
    return marks


def monitor(tool, directory, seconds):
    cycles = max(1, int((seconds - 2) // 70))
    recording = os.path.join(directory, "monitor.jsonl")
    marks = monitor_recording(recording, cycles)
    process = subprocess.Popen([tool, recording, str(2 + 70 * cycles), "--monitor"], stdout=subprocess.PIPE, text=True)
    start, events = None, []
    for line in process.stdout:
        now = time.monotonic()
        item = json.loads(line)
        if "start" in item:
            start = now
        elif item["event"] in ("entered", "exited"):
            events.append((item["event"], now - start))
    process.wait()
    entries = [t for e, t in events if e == "entered"]
    exits = [t for e, t in events if e == "exited"]
    entry_lags = [t - first for t, (first, _) in zip(entries, marks)]
    exit_lags = [t - last for t, (_, last) in zip(exits, marks)]
    gap_exits = [t for t in exits if any(first + 10 <= t <= first + 20 + 1.5 for first, _ in marks)]
    print("monitoring: %d cycles of 70 s, %d entries, %d exits (wall clock, from the advert's time in the replay)"
          % (cycles, len(entries), len(exits)))
    if entry_lags:
        print("  entry after the first advert: median %.3f s, worst %.3f s" % (
            statistics.median(entry_lags), max(entry_lags)))
    if exit_lags:
        print("  exit after the last advert: median %.3f s, range %.3f–%.3f s (documented: 30 s)" % (
            statistics.median(exit_lags), min(exit_lags), max(exit_lags)))
    print("  exits during a 10 s gap: %d" % len(gap_exits))


def main():
    tool = sys.argv[1]
    seconds = option("--seconds", 120.0)
    loop_seconds = option("--loop-seconds", 0.0)
    rng = random.Random(13)
    directory = tempfile.mkdtemp()
    atexit.register(shutil.rmtree, directory, ignore_errors=True)
    recording = os.path.join(directory, "synthetic.jsonl")
    naive = generate(recording, loop_seconds or seconds, rng)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    if "--standin" in sys.argv:
        command = [tool, recording, str(seconds)] + (["--loop"] if loop_seconds else [])
    else:
        command = [tool, "beacons", "--simulate", recording, "--format", "json", "--duration", str(seconds)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    rss, stop = [], threading.Event()
    sampler = threading.Thread(target=sample_rss, args=(process.pid, rss, stop), daemon=True)
    sampler.start()
    arrivals, results = [], []
    for line in process.stdout:
        arrivals.append(time.monotonic())
        results.append(json.loads(line))
    stop.set()
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
    if len(rss) > 70:
        # After the first minute (the recording read, the first cycles' allocations), per 100 s of ranging.
        settled = [(t, kib) for t, kib in rss if t >= 60]
        n = len(settled)
        mean_t = sum(t for t, _ in settled) / n
        mean_k = sum(k for _, k in settled) / n
        slope = sum((t - mean_t) * (k - mean_k) for t, k in settled) / sum((t - mean_t) ** 2 for t, _ in settled)
        print("memory: RSS at 60 s %.1f MiB, at the end %.1f MiB, max %.1f MiB; trend after 60 s %+.3f MiB per 100 s"
              % (settled[0][1] / 1024, rss[-1][1] / 1024, max(k for _, k in rss) / 1024, slope * 100 / 1024))
    monitor_seconds = option("--monitor-seconds", 0.0)
    if monitor_seconds and "--standin" in sys.argv:
        monitor(tool, directory, monitor_seconds)


if __name__ == "__main__":
    main()
