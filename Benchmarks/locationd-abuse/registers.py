#!/usr/bin/env python3
"""Issue 37, item 2: N `register` requests on one connection, then another client's ping, against two
locationd builds side by side in one run (before: main at e15bfc3; after: this branch).

For each build and each N it starts a fresh locationd (its own socket and database, a simulated source),
sends N registers pipelined on one connection and times until every one is answered (ok or, past the
per-connection limit of decision 0086, refused), times a second connection's ping sent while they are handled
(once a tenth is answered), then closes the first connection and times a ping sent 50 ms after the close (answered once the daemon has
dropped the connection's clients: the disconnect's cost). Medians over
--trials runs; the ratio is before / after.

Usage: registers.py BEFORE_BIN_DIR AFTER_BIN_DIR [--counts 1000,8000,16000] [--trials 3] [--timeout 600]
                    [--only before|after]
"""
import argparse
import json
import socket
import struct
import sys
import threading
import time

from daemon import Daemon, frame, medians as medians_of


class Reader(threading.Thread):
    """Reads frames of one connection, counting replies; `wait(n)` blocks until n replies came."""

    def __init__(self, sock):
        super().__init__(daemon=True)
        self.sock = sock
        self.replies = 0
        self.refused = 0
        self.clients = None
        self.cond = threading.Condition()
        self.start()

    def run(self):
        buffer = b""
        while True:
            try:
                chunk = self.sock.recv(1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                with self.cond:
                    self.replies = -1
                    self.cond.notify_all()
                return
            buffer += chunk
            while len(buffer) >= 4:
                (length,) = struct.unpack(">I", buffer[:4])
                if len(buffer) < 4 + length:
                    break
                message = json.loads(buffer[4:4 + length])
                buffer = buffer[4 + length:]
                if message.get("type") == "reply":
                    body = message.get("body", {})
                    if body.get("type") == "status":
                        status = body.get("status", body)
                        # Listed and counted (a status lists 128 clients at most).
                        self.clients = sum(len(app.get("clients", [])) + app.get("omittedClients", 0)
                                           for app in status.get("apps", []))
                    with self.cond:
                        self.replies += 1
                        if message.get("body", {}).get("type") == "failure":
                            self.refused += 1
                        self.cond.notify_all()

    def wait(self, count, timeout):
        deadline = time.monotonic() + timeout
        with self.cond:
            while 0 <= self.replies < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.cond.wait(left)
            return self.replies >= count


def connect(path, label):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    sock.sendall(frame({"type": "hello", "version": 2, "label": label}))
    return sock, Reader(sock)


def ping(sock, reader, request_id, timeout):
    before = reader.replies
    start = time.monotonic()
    sock.sendall(frame({"type": "request", "id": request_id, "body": {"type": "ping"}}))
    ok = reader.wait(before + 1, timeout)
    return time.monotonic() - start if ok else float("inf")


def trial(bin_dir, count, timeout):
    # The status listing 16 000 clients is over the default 1 MiB of unread output.
    with Daemon(bin_dir, "--max-buffered", str(64 << 20)) as daemon:
        path = daemon.path
        abuser, abuser_reader = connect(path, "abuser")
        other, other_reader = connect(path, "other")
        ping(other, other_reader, 1, timeout)
        registers = b"".join(
            frame({"type": "request", "id": i, "body": {"type": "register", "client": i, "label": "c"}})
            for i in range(1, count + 1))
        start = time.monotonic()
        threading.Thread(target=abuser.sendall, args=(registers,), daemon=True).start()
        # The other client's ping while the registers are being handled (sent once a tenth of them is answered).
        abuser_reader.wait(count // 10, timeout)
        next_ping = ping(other, other_reader, 2, timeout)
        answered = abuser_reader.wait(count, timeout)
        registered = time.monotonic() - start if answered else float("inf")
        # Closing: the daemon drops the connection's clients on its event loop; a ping sent just after the close
        # is answered once that is done.
        abuser.close()
        time.sleep(0.05)
        gone = ping(other, other_reader, 3, timeout)
        return {"register": registered, "ping": next_ping, "gone": gone, "refused": abuser_reader.refused}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--counts", default="1000,8000,16000")
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--only", choices=["before", "after"], help="measure one build (no ratio)")
    args = parser.parse_args()
    print(f"{'N':>6} {'build':>6} {'registers s':>12} {'refused':>8} {'ping meanwhile s':>17} {'ping after close s':>19}")
    for count in [int(c) for c in args.counts.split(",")]:
        medians = {}
        for name, bin_dir in (("before", args.before), ("after", args.after)):
            if args.only and name != args.only:
                continue
            runs = [trial(bin_dir, count, args.timeout) for _ in range(args.trials)]
            m = medians[name] = medians_of(runs)
            print(f"{count:>6} {name:>6} {m['register']:>12.3f} {m['refused']:>8} {m['ping']:>17.4f} "
                  f"{m['gone']:>19.4f}", flush=True)
        if args.only:
            continue
        ratio = {key: medians["before"][key] / max(medians["after"][key], 1e-6)
                 for key in ("register", "ping", "gone")}
        print(f"{count:>6} {'ratio':>6} {ratio['register']:>12.1f} {'':>8} {ratio['ping']:>17.1f} "
              f"{ratio['gone']:>19.1f}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
