#!/usr/bin/env python3
"""reverse_geocoder (PyPI; a k-d tree over GeoNames cities) on the same points as GeocodingBench.
Usage: bench_reverse_geocoder.py POINTS.bin OUT.tsv [REPETITIONS] [LABEL]
Loads RGeocoder REPETITIONS times, as GeocodingBench loads its gazetteer: the first is the cold one
(first in this process), the rest warm.
Single queries call RGeocoder.query([point]) (the library's own per-call path, no multiprocessing);
the batch passes all points to one RGeocoder.query call (mode 1: one process)."""
import resource
import struct
import sys
import time

import reverse_geocoder as rg


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def forget_instance():
    """RGeocoder is wrapped in reverse_geocoder's @singleton: a second RGeocoder(...) returns the first
    instance without loading anything (a "warm load" of 0 ms). Empty the wrapper's instance cache so
    every load reads the cities file and builds the k-d tree again, as every GeocodingBench load does."""
    for cell in rg.RGeocoder.__closure__ or ():
        if isinstance(cell.cell_contents, dict):
            cell.cell_contents.clear()


def main():
    points_path, out_path = sys.argv[1], sys.argv[2]
    reps = max(2, int(sys.argv[3]) if len(sys.argv) > 3 else 5)
    label = sys.argv[4] if len(sys.argv) > 4 else "reverse_geocoder"
    data = open(points_path, "rb").read()
    points = list(struct.iter_unpack("<dd", data))

    before = rss_kib()
    loads = []
    geo = None
    for _ in range(reps):
        geo = None
        forget_instance()
        start = time.perf_counter()
        geo = rg.RGeocoder(mode=1, verbose=False)
        loads.append(time.perf_counter() - start)
    after = rss_kib()
    warm = sorted(loads[1:])

    latencies = []
    answers = []
    for p in points:
        t = time.perf_counter()
        result = geo.query([p])[0]
        latencies.append(time.perf_counter() - t)
        answers.append(result)
    mean = sum(latencies) / len(latencies) * 1e6
    latencies.sort()
    p50 = latencies[len(latencies) // 2] * 1e6
    p99 = latencies[len(latencies) * 99 // 100] * 1e6

    batch = []
    batch_cpu = []
    for _ in range(reps):
        t = time.perf_counter()
        c = time.thread_time()
        geo.query(points)
        batch_cpu.append(time.thread_time() - c)
        batch.append(time.perf_counter() - t)
    batch.sort()
    batch_cpu.sort()
    median = batch[len(batch) // 2]
    cpu_median = batch_cpu[len(batch_cpu) // 2]

    with open(out_path, "w") as f:
        f.write("lat\tlon\tcountry\tname\n")
        for (lat, lon), r in zip(points, answers):
            f.write(f"{lat}\t{lon}\t{r['cc']}\t{r['name']}\n")
    print(f"{label} loads {len(loads)} load_ms_cold {loads[0] * 1000:.1f} "
          f"load_ms_warm_median {warm[len(warm) // 2] * 1000:.1f} rss_growth_mib {(after - before) / 1024:.1f}")
    print(f"{label} points {len(points)} single_p50_us {p50:.2f} single_p99_us {p99:.2f} single_mean_us {mean:.2f}")
    print(f"{label} batch_per_query_us {median / len(points) * 1e6:.3f} "
          f"batch_cpu_per_query_us {cpu_median / len(points) * 1e6:.3f} "
          f"batch_queries_per_s {len(points) / median:.0f}")


if __name__ == "__main__":
    main()
