#!/usr/bin/env python3
"""Issue 37, item 6: hello throughput while other connections are held open, for one or two locationd builds.

The audit (43aa3e6, release): 3 087 hellos/s with no other connection, 54/s with 6 000 held — each hello's socket was
found among all of the daemon's descriptors (a scan of /proc/self/fd, one getsockopt each, on the event loop). The
daemon now accepts its connections itself and knows the descriptor (`Acceptor`, `DirectSocket.duplicate(_:)`).

For each build and each number H of held connections it starts a fresh locationd (its own socket and database, a
simulated source, the per-uid connection cap raised to H + 64 so that one uid can hold them, as the audit's many
users could), opens H connections that each said hello (so each holds the daemon's duplicate too), makes 200 hellos to warm
up, then for --seconds makes connections one after another — connect, hello, read the daemon's hello, close — and counts them.
Medians over --trials runs. Needs a descriptor limit above 2 H + 100 (raised to the hard limit here).

Usage: connections.py BIN_DIR [BIN_DIR ...] [--held 0,6000] [--seconds 3] [--trials 3]
"""
import argparse
import statistics
import sys
import time

from daemon import Daemon, hello, raise_descriptor_limit


def trial(bin_dir, held, seconds):
    sockets = []
    with Daemon(bin_dir, "--max-connections-per-uid", str(held + 64)) as daemon:
        try:
            for _ in range(held):
                sockets.append(hello(daemon.path))
            # Warm-up, so that both cases measure a daemon past its start (sources opened, first fixes).
            for _ in range(200):
                hello(daemon.path).close()
            count = 0
            start = time.monotonic()
            while time.monotonic() - start < seconds:
                hello(daemon.path).close()
                count += 1
            return count / (time.monotonic() - start)
        finally:
            for sock in sockets:
                sock.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bins", nargs="+")
    parser.add_argument("--held", default="0,6000")
    parser.add_argument("--seconds", type=float, default=3)
    parser.add_argument("--trials", type=int, default=3)
    args = parser.parse_args()
    hard = raise_descriptor_limit()
    print(f"{'held':>6} {'hellos/s':>9}  build")
    for held in [int(h) for h in args.held.split(",")]:
        if 2 * held + 100 > hard:
            print(f"{held:>6} skipped: the descriptor limit is {hard}")
            continue
        for bin_dir in args.bins:
            runs = [trial(bin_dir, held, args.seconds) for _ in range(args.trials)]
            print(f"{held:>6} {statistics.median(runs):>9.0f}  {bin_dir}  (runs {', '.join(f'{r:.0f}' for r in runs)})",
                  flush=True)


if __name__ == "__main__":
    sys.exit(main())
