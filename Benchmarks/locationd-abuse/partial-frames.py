#!/usr/bin/env python3
"""Issue 37, item 7: many connections that each say hello, then send half a frame and nothing more; the daemon's
memory while they are held and after they close, and whether the daemon cuts them, for one or more locationd builds.

The audit (43aa3e6, release): 4 000 such connections held 500 MB, still held after they closed (a frame begun was
never timed out, and nothing bounded the bytes held). The daemon now gives a frame begun --frame-timeout (10 s) to
complete and holds at most --max-partial-frames (16 MiB) of incomplete frames for all connections together; a
connection over either is sent a `tooSlow` error and closed (decision 0086).

For each build and trial it starts a fresh locationd (`daemon.Daemon`, its own defaults but for the per-uid
connection cap, raised to N + 64 so that item 6's cap does not stand in front of item 7's limits), opens N
connections, each: connect, hello, read the daemon's hello, send a frame's 4-byte length announcing 65 536 bytes
(the largest frame) and --bytes of it. Then it reads every connection until the daemon closes it or --wait seconds
have passed since the last was opened, and sorts each by the error the daemon sent: refused over the daemon's
budget ("incomplete frames"), cut by the timeout ("not completed", with the seconds from its half frame to the
close), or still open. Memory (MB, /proc/PID/status): VmRSS before, VmRSS once the N half frames are sent
("held"), VmHWM then, VmRSS once every connection is cut or timed out ("cut"), VmRSS 2 s after the client closed
them all ("closed"), and the same after --rounds rounds of N on the same daemon ("again", default 2: memory the
first round gave back is taken again, not added to). Another client's hello while they are held, ms. Medians over --trials.

Usage: partial-frames.py BIN_DIR [BIN_DIR ...] [--connections 4000] [--bytes 32768] [--wait 15] [--trials 3]
                         [--rounds 2]

Measured (2026-11-29, release build of df922706 with `packaging/build-deb.sh`'s flags, 2 cores shared with other
builds; `python3 Benchmarks/locationd-abuse/partial-frames.py .build/release`; medians of 3):
     RSS MB   held    HWM    cut closed  again | hello ms | refused timed out after s p50/max other  open
       35.3   66.6   66.6   66.6   66.6   76.9 |     0.58 |    3489       511   10.00/ 10.01     0     0
511 x 32 KiB is the 16 MiB budget. The memory a round freed stays with the process (glibc's heap) and is mostly
taken again: `--rounds 5` and `--rounds 10` (one trial each) ended at 84.1 and 85.4 MB, so it settles.
Before (the audit, 43aa3e6): 500 MB held, still held after the connections closed.
"""
import argparse
import json
import selectors
import socket
import struct
import sys
import time

from daemon import Daemon, hello, medians, percentile, raise_descriptor_limit, timed_hello

MB = 1000 * 1000
FRAME = 65_536


def outcome(data):
    """What the daemon said before closing: the error frame's text, or "" when it said nothing."""
    if len(data) < 4:
        return ""
    (length,) = struct.unpack(">I", data[:4])
    try:
        return json.dumps(json.loads(data[4:4 + length]))
    except ValueError:
        return ""


def trial(bin_dir, connections, sent_bytes, wait, rounds):
    with Daemon(bin_dir, "--max-connections-per-uid", str(connections + 64)) as daemon:
        for _ in range(20):
            timed_hello(daemon.path)
        rss_before = daemon.memory()["VmRSS"]
        first = held_round(daemon, connections, sent_bytes, wait)
        # The same again on the same daemon: memory given back is taken again, not added to.
        last = first
        for _ in range(rounds - 1):
            last = held_round(daemon, connections, sent_bytes, wait)
        return dict(first, rss_before=rss_before * 1000 / MB, rss_second=last["rss_closed"])


def held_round(daemon, connections, sent_bytes, wait):
    """N connections that each sent a hello and half a frame, watched until the daemon cut them or `wait` passed,
    then closed."""
    half = struct.pack(">I", FRAME) + b" " * sent_bytes
    sockets, sent_at = [], {}
    for _ in range(connections):
        sock = hello(daemon.path, "half")
        try:
            sock.sendall(half)
        except OSError:  # closed already (refused over the budget before the write ended)
            pass
        sent_at[sock] = time.monotonic()
        sockets.append(sock)
    last_sent = time.monotonic()
    time.sleep(0.5)
    held = daemon.memory()
    other = [timed_hello(daemon.path) for _ in range(20)]

    selector = selectors.DefaultSelector()
    received = {}
    for sock in sockets:
        sock.setblocking(False)
        received[sock] = b""
        selector.register(sock, selectors.EVENT_READ)
    closed_after = {}
    while len(closed_after) < len(sockets) and time.monotonic() < last_sent + wait:
        for key, _ in selector.select(timeout=0.2):
            sock = key.fileobj
            try:
                chunk = sock.recv(1 << 16)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                chunk = b""
            if chunk:
                received[sock] += chunk
            else:
                closed_after[sock] = time.monotonic() - sent_at[sock]
                selector.unregister(sock)
    cut = daemon.memory()["VmRSS"]
    refused = [s for s in closed_after if "incomplete frames" in outcome(received[s])]
    timed_out = [closed_after[s] for s in closed_after if "not completed" in outcome(received[s])]
    for sock in sockets:
        sock.close()
    time.sleep(2)
    after_close = daemon.memory()["VmRSS"]
    return {
        "rss_held": held["VmRSS"] * 1000 / MB,
        "hwm": held["VmHWM"] * 1000 / MB, "rss_cut": cut * 1000 / MB, "rss_closed": after_close * 1000 / MB,
        "other_ms": percentile(other, 0.5) * 1000,
        "refused": len(refused), "timed_out": len(timed_out), "open": len(sockets) - len(closed_after),
        "closed_other": len(closed_after) - len(refused) - len(timed_out),
        "timeout_s": percentile(timed_out, 0.5) if timed_out else float("nan"),
        "timeout_max_s": max(timed_out) if timed_out else float("nan"),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bins", nargs="+")
    parser.add_argument("--connections", type=int, default=4000)
    parser.add_argument("--bytes", type=int, default=FRAME // 2, help="bytes of the 65 536-byte frame sent")
    parser.add_argument("--wait", type=float, default=15, help="seconds after the last half frame to watch")
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=2, help="rounds of N on each daemon (\"again\": after the last)")
    args = parser.parse_args()
    hard = raise_descriptor_limit()
    if 3 * args.connections + 100 > hard:
        sys.exit(f"needs a descriptor limit over {3 * args.connections + 100}; the hard limit is {hard}")
    print(f"{args.connections} connections, each a hello then {args.bytes} bytes of a {FRAME}-byte frame; "
          f"medians of {args.trials}")
    print(f"{'RSS MB':>7} {'held':>6} {'HWM':>6} {'cut':>6} {'closed':>6} {'again':>6} | {'hello ms':>8} | "
          f"{'refused':>7} {'timed out':>9} {'after s p50/max':>15} {'other':>5} {'open':>5}  build")
    for bin_dir in args.bins:
        m = medians([trial(bin_dir, args.connections, args.bytes, args.wait, args.rounds) for _ in range(args.trials)])
        print(f"{m['rss_before']:>7.1f} {m['rss_held']:>6.1f} {m['hwm']:>6.1f} {m['rss_cut']:>6.1f} "
              f"{m['rss_closed']:>6.1f} {m['rss_second']:>6.1f} | {m['other_ms']:>8.2f} | {m['refused']:>7.0f} {m['timed_out']:>9.0f} "
              f"{m['timeout_s']:>7.2f}/{m['timeout_max_s']:>6.2f} {m['closed_other']:>5.0f} {m['open']:>5.0f}  "
              f"{bin_dir}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
