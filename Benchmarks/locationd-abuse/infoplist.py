#!/usr/bin/env python3
"""Issue 37, item 1: a client whose executable has a 1 GiB sparse Info.plist beside it connects again and again;
the daemon's memory, and another client's hello latency meanwhile, for one or more locationd builds.

The audit (43aa3e6, release, the system daemon): resident memory 53 MB -> 4.2 GB, and every other user's hello
stalled 5 s+, at every connection (the plist read whole with `Data(contentsOf:)` on the event loop). The daemon now
opens the file and refuses it by `fstat` (a regular file of at most 64 KiB, the client's or root's) before any
read, off the event loop (decision 0069).

The abuser is this script run by a copy of the Python interpreter in a directory of its own, with an `Info.plist`
of --plist-size bytes (a sparse file: no disk used) beside it: the daemon resolves the app from /proc/PID/exe, so
that plist is the app's. For each build and trial it starts a fresh locationd (`daemon.Daemon`, log level
warning), times 100 hellos of another client with no abuser (the baseline), then for --seconds lets the abuser
connect, say hello, read the daemon's hello and close, again and again, while the other client keeps timing hellos
(one every 10 ms) and the daemon's VmRSS is sampled at each. Reported, medians over --trials: the daemon's VmRSS
before, its highest sample and VmHWM after (MB), the other client's hello p50 / p99 / max (ms) without and with the
abuser, the abuser's hellos, and the refusals the daemon logged ("over the limit"; the run fails if there is none,
so that a run where the plist was never looked at cannot pass for a fast one).

Usage: infoplist.py BIN_DIR [BIN_DIR ...] [--seconds 10] [--trials 3] [--plist-size 1073741824]
       (infoplist.py --abuser SOCKET SECONDS is what the copied interpreter runs)

Measured (2026-11-29, release build of df922706 with `packaging/build-deb.sh`'s flags, 2 cores shared with other
builds, load average ~5; `python3 Benchmarks/locationd-abuse/infoplist.py .build/release`; medians of 3):
     RSS MB   peak    HWM | alone p50/p99 ms | meanwhile p50/p99/max ms | abuser hellos  refused
       35.8   36.2   36.2 |    0.64 /  16.28 |    1.47 /  11.74 /   19.2 |          7084     7084
Before (the audit, 43aa3e6): 53 MB -> 4.2 GB resident, every other hello stalled 5 s+.
"""
import argparse
import os
import shutil
import subprocess
import sys
import time

from daemon import Daemon, hello, medians, percentile, timed_hello

MB = 1000 * 1000


def abuser(path, seconds):
    """Hellos one after another for `seconds`; prints how many."""
    count = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        hello(path, "abuser").close()
        count += 1
    print(count)


def interpreter():
    """A Python interpreter that still runs when copied elsewhere: Debian's (its prefix is compiled in), else
    this one."""
    for candidate in ("/usr/bin/python3", sys.executable):
        real = os.path.realpath(candidate)
        if os.path.isfile(real):
            return real
    raise RuntimeError("no Python interpreter to copy")


def trial(bin_dir, seconds, plist_size):
    with Daemon(bin_dir, log_level="warning") as daemon:
        app = os.path.join(daemon.work, "app")
        os.mkdir(app)
        executable = os.path.join(app, "abuser")
        shutil.copy2(interpreter(), executable)
        with open(os.path.join(app, "Info.plist"), "wb") as plist:
            plist.truncate(plist_size)
        for _ in range(20):
            timed_hello(daemon.path)
        alone = [timed_hello(daemon.path) for _ in range(100)]
        rss_before = daemon.memory()["VmRSS"]
        process = subprocess.Popen(
            [executable, os.path.abspath(__file__), "--abuser", daemon.path, str(seconds)],
            cwd=os.path.dirname(os.path.abspath(__file__)), stdout=subprocess.PIPE, text=True)
        meanwhile = []
        rss_peak = rss_before
        while process.poll() is None:
            meanwhile.append(timed_hello(daemon.path))
            rss_peak = max(rss_peak, daemon.memory()["VmRSS"])
            time.sleep(0.01)
        output, _ = process.communicate()
        if process.returncode != 0:
            raise RuntimeError(f"the abuser failed ({process.returncode})")
        memory = daemon.memory()
        refusals = daemon.log_text().count("over the limit of")
        if refusals == 0:
            raise RuntimeError("the daemon logged no refused Info.plist: the abuser's plist was not looked at\n"
                               + daemon.log_text()[-2000:])
        return {
            "rss_before": rss_before * 1000 / MB, "rss_peak": rss_peak * 1000 / MB, "hwm": memory["VmHWM"] * 1000 / MB,
            "alone_p50": percentile(alone, 0.5) * 1000, "alone_p99": percentile(alone, 0.99) * 1000,
            "p50": percentile(meanwhile, 0.5) * 1000, "p99": percentile(meanwhile, 0.99) * 1000,
            "max": max(meanwhile) * 1000, "abuser_hellos": int(output.split()[-1]), "refusals": refusals,
        }


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--abuser":
        return abuser(sys.argv[2], float(sys.argv[3]))
    parser = argparse.ArgumentParser()
    parser.add_argument("bins", nargs="+")
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--plist-size", type=int, default=1 << 30)
    args = parser.parse_args()
    print(f"Info.plist of {args.plist_size} bytes beside the abuser; {args.seconds:g} s of its hellos; "
          f"medians of {args.trials}")
    print(f"{'RSS MB':>7} {'peak':>6} {'HWM':>6} | {'alone p50/p99 ms':>16} | {'meanwhile p50/p99/max ms':>24} | "
          f"{'abuser hellos':>13} {'refused':>8}  build")
    for bin_dir in args.bins:
        m = medians([trial(bin_dir, args.seconds, args.plist_size) for _ in range(args.trials)])
        print(f"{m['rss_before']:>7.1f} {m['rss_peak']:>6.1f} {m['hwm']:>6.1f} | "
              f"{m['alone_p50']:>7.2f} / {m['alone_p99']:>6.2f} | "
              f"{m['p50']:>7.2f} / {m['p99']:>6.2f} / {m['max']:>6.1f} | {m['abuser_hellos']:>13.0f} "
              f"{m['refusals']:>8.0f}  {bin_dir}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
