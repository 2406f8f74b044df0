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

--gpsd makes every connection, held and counted, to the gpsd front door (`--gpsd-listen unix:PATH`; decision 0099)
instead: connect, `?DEVICES;`, read the DEVICES answer (by then the daemon has its duplicate), close.
--settings names this Python as the daemon's Settings executable (CORELOCATION_SETTINGS_EXECUTABLE), so that every
connection is a Settings connection, read through the relay that checks each read's writer (decision 0100).

Usage: connections.py BIN_DIR [BIN_DIR ...] [--held 0,6000] [--seconds 3] [--trials 3] [--gpsd | --settings]
"""
import argparse
import os
import socket
import statistics
import sys
import time

from daemon import Daemon, hello, raise_descriptor_limit


def gpsd_hello(path, timeout=30):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    sock.connect(path)
    sock.sendall(b"?DEVICES;\n")
    received = b""
    while b'"class":"DEVICES"' not in received:
        chunk = sock.recv(4096)
        if not chunk:
            sock.close()
            raise RuntimeError(f"no DEVICES: {received!r}")
        received += chunk
    return sock


def trial(bin_dir, held, seconds, mode=None):
    options = ["--max-connections-per-uid", str(held + 64)]
    env, socket_name = {}, "l.sock"
    if mode == "gpsd":
        options += ["--gpsd-listen", "unix:{work}/g.sock"]
        socket_name = "g.sock"
    if mode == "settings":
        env["CORELOCATION_SETTINGS_EXECUTABLE"] = os.path.realpath(sys.executable)
    hello_once = gpsd_hello if mode == "gpsd" else hello
    sockets = []
    with Daemon(bin_dir, *options, env=env, socket_name=socket_name) as daemon:
        try:
            for _ in range(held):
                sockets.append(hello_once(daemon.path))
            # Warm-up, so that both cases measure a daemon past its start (sources opened, first fixes).
            for _ in range(200):
                hello_once(daemon.path).close()
            count = 0
            start = time.monotonic()
            while time.monotonic() - start < seconds:
                hello_once(daemon.path).close()
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
    modes = parser.add_mutually_exclusive_group()
    modes.add_argument("--gpsd", dest="mode", action="store_const", const="gpsd")
    modes.add_argument("--settings", dest="mode", action="store_const", const="settings")
    args = parser.parse_args()
    hard = raise_descriptor_limit()
    print(f"{'held':>6} {'hellos/s':>9}  build  ({args.mode or 'apps'})")
    for held in [int(h) for h in args.held.split(",")]:
        if 2 * held + 100 > hard:
            print(f"{held:>6} skipped: the descriptor limit is {hard}")
            continue
        for bin_dir in args.bins:
            runs = [trial(bin_dir, held, args.seconds, args.mode) for _ in range(args.trials)]
            print(f"{held:>6} {statistics.median(runs):>9.0f}  {bin_dir}  (runs {', '.join(f'{r:.0f}' for r in runs)})",
                  flush=True)


if __name__ == "__main__":
    sys.exit(main())
