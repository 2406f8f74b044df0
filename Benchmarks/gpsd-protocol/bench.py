#!/usr/bin/env python3
"""locationd's gpsd front door against gpsd 3.22, side by side in one run (issue 39, "Measured").

The feed, the clients and the measure are Benchmarks/locationd/bench.py's (imported): one NMEA feed writing an
epoch every 100 ms to one port per system, read by a real gpsd (`gpsd -N -b tcp://…`) and by a real locationd
(`--source tcp://…`). Here both systems' clients are the same raw gpsd-protocol clients
(`?WATCH={"enable":true,"json":true}`, what `gpspipe -w` sends), on locationd's `--gpsd-listen` port and on
gpsd's port: the latency from the feed's write of an epoch to that epoch's TPV at each client, p50 / p99 / p99.9,
drops, for N = 8, 64, 1000 (gpsd serves 64 at most: its 1000 row counts who it served). Cost: each daemon's CPU
per delivered report (CPU seconds of the round / TPVs delivered) and memory per client ((RSS with N clients −
RSS before) / N).

The clients are this interpreter, one app to locationd: the daemon runs with CORELOCATION_DEFAULT_POLICY=when-in-use
(the headless policy's answer for it, no agent), and each client is identified through /proc/net/tcp like any.

Usage: bench.py BIN_DIR [--seconds S] [--clients 8,64,1000] [--rounds R]
"""
import argparse
import atexit
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "locationd"))
import bench as base  # noqa: E402  (Benchmarks/locationd/bench.py)


def free_port():
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    return port


def round_of(system, n, seconds, feed, port, pid):
    with feed.lock:
        feed.active = {system}
    try:
        rss0 = base.rss_kib(pid)
        group = base.Clients()
        made = [c for c in (group.add_gpsd(port) for _ in range(n)) if c]
        time.sleep(3)  # warm-up: every client identified, authorized and receiving
        first = feed.k + 1
        cpu0, wall0 = base.cpu_seconds(pid), time.monotonic()
        time.sleep(seconds)
        last = feed.k - 2
        cpu = base.cpu_seconds(pid) - cpu0
        wall = time.monotonic() - wall0
        rss = base.rss_kib(pid)
        time.sleep(1)  # the last epochs' stragglers
        # At 1000 clients the clients' reader may still be adding a late epoch while it is measured (a dictionary
        # changed during iteration, 2026-11-29): measured again a moment later.
        for attempt in range(10):
            try:
                latencies, drops, served = base.measure(feed.outlets[system].sent, made, first, last)
                break
            except RuntimeError:
                if attempt == 9:
                    raise
                time.sleep(0.2)
        group.close()
        time.sleep(2)
        return dict(latencies=latencies, drops=drops, served=served, epochs=last - first, cpu=cpu, wall=wall,
                    rss_per_client=(rss - rss0) / max(len(made), 1))
    finally:
        with feed.lock:
            feed.active = set(feed.outlets)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bin")
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--clients", default="8,64,1000")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    directory = tempfile.mkdtemp(prefix="gpsd-protocol-bench-")
    atexit.register(shutil.rmtree, directory, ignore_errors=True)
    environment = dict(os.environ, CORELOCATION_PROMPT="never", CORELOCATION_DEFAULT_POLICY="when-in-use",
                       CORELOCATION_DATABASE=directory + "/app.sqlite")
    feed = base.Feed()
    gpsd_port, front_port = free_port(), free_port()
    gpsd = subprocess.Popen(["gpsd", "-N", "-b", "-S", str(gpsd_port), "tcp://127.0.0.1:%d" % feed.outlets["gpsd"].port],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    daemon = subprocess.Popen([args.bin + "/locationd", "--socket", directory + "/l.sock", "--database",
                               directory + "/d.sqlite", "--config", "/dev/null", "--source",
                               "tcp://127.0.0.1:%d" % feed.outlets["locationd"].port, "--gpsd-listen",
                               "127.0.0.1:%d" % front_port, "--log-level", "warning"],
                              env=environment, stderr=subprocess.DEVNULL)
    time.sleep(2)
    rows = []
    try:
        for n in [int(x) for x in args.clients.split(",")]:
            rounds = args.rounds if n <= 64 else 1
            pooled = {s: dict(latencies=[], drops=0, served=0, epochs=0, cpu=0.0, wall=0.0, rss=[]) for s in
                      ("locationd", "gpsd")}
            for r in range(rounds):
                for system in (("locationd", "gpsd") if r % 2 == 0 else ("gpsd", "locationd")):
                    port, pid = (front_port, daemon.pid) if system == "locationd" else (gpsd_port, gpsd.pid)
                    result = round_of(system, n, args.seconds / rounds, feed, port, pid)
                    row = pooled[system]
                    row["latencies"] += result["latencies"]
                    row["drops"] += result["drops"]
                    row["served"] = max(row["served"], result["served"])
                    row["epochs"] += result["epochs"]
                    row["cpu"] += result["cpu"]
                    row["wall"] += result["wall"]
                    row["rss"].append(result["rss_per_client"])
            for system in ("locationd", "gpsd"):
                row = pooled[system]
                delivered = len(row["latencies"])
                out = dict(n=n, system=system, served=row["served"], epochs=row["epochs"], drops=row["drops"],
                           p50=base.percentile(row["latencies"], 50), p99=base.percentile(row["latencies"], 99),
                           p999=base.percentile(row["latencies"], 99.9),
                           cpu_us_per_report=row["cpu"] / delivered * 1e6 if delivered else float("nan"),
                           cpu_percent=row["cpu"] / row["wall"] * 100 if row["wall"] else float("nan"),
                           rss_kib_per_client=max(row["rss"]) if row["rss"] else float("nan"))
                rows.append(out)
                print("%5d %-9s served %4d  p50 %7.2f  p99 %7.2f  p99.9 %7.2f ms  drops %d  cpu %.1f us/report "
                      "(%.1f%%)  rss %+.1f KiB/client" % (n, system, out["served"], out["p50"], out["p99"], out["p999"],
                                                        out["drops"], out["cpu_us_per_report"], out["cpu_percent"],
                                                        out["rss_kib_per_client"]), flush=True)
            ours = rows[-2]
            theirs = rows[-1]
            if theirs["served"] and ours["served"]:
                print("%5d ratio locationd/gpsd: p50 %.2f  p99 %.2f  cpu/report %.2f" % (
                    n, ours["p50"] / theirs["p50"], ours["p99"] / theirs["p99"],
                    ours["cpu_us_per_report"] / theirs["cpu_us_per_report"]), flush=True)
    finally:
        daemon.terminate()
        daemon.wait(timeout=10)
        gpsd.terminate()
        gpsd.wait(timeout=10)
        feed.running = False
    if args.out:
        with open(args.out, "w") as handle:
            json.dump(dict(rows=rows), handle, indent=2)


if __name__ == "__main__":
    main()
