#!/usr/bin/env python3
"""locationd against gpsd 3.22, side by side in one run (issue 10, "Measured").

One NMEA feed (a loopback TCP server writing an epoch every 100 ms: RMC + GGA, the epoch number in
the UTC time, on one port per system) is read by a real locationd (`--source tcp://…`) and by a real
gpsd (`gpsd -N -b tcp://…`: its default, opening the receiver with its first client as locationd does,
so neither reads the feed during the other's turn). For N clients of each (8, 64, 256, 1000) it
measures, on the monotonic clock of this one process, the time from the feed's write of an epoch to
that system's port to its arrival at each client (the port written first alternates by epoch): p50 / p99 / p99.9 and drops (epochs a served client never got). locationd's clients speak
its protocol (hello, register, startUpdates: what the library sends for a CLLocationManager);
gpsd's clients send `?WATCH={"enable":true,"json":true}`, which is what `gpspipe -w` does.

Then: decision propagation (`locationctl authorize APP deny` against a running client receiving
fixes at 10 Hz: command start → the client's authorization event, and fixes after the command
returned), and cost (locationd's idle CPU, its CPU with 64 clients, memory per client from RSS,
`locationctl status` wall time).

Usage: bench.py BIN_DIR [--seconds S] [--clients 8,64,256,1000] [--trials T] [--fanout-only]

`--fanout-only` measures the fan-out rows only (no idle period, no propagation trials, no `status`):
the short run to use while working on the delivery path, e.g. `--fanout-only --clients 8,64 --seconds 20`.

`--pin` places both daemons on the last CPU and this driver (feed and clients) on the first, the same
for both systems, instead of where the scheduler puts them: at 8 clients the two daemons' p50 lie within
0.04 ms, and which one leads moved with that placement (README.md, "where the daemons run").
"""
import argparse
import atexit
import json
import os
import re
import selectors
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time

INTERVAL = 0.1
class Protocol:
    """The frames bench.py sends and reads, in locationd's protocol version 1 (before decision 0068) or 2: the
    same run compares a daemon of either version (--protocol)."""

    def __init__(self, version):
        self.version = version

    def hello(self, label):
        if self.version == 1:
            return {"hello": {"_0": {"version": 1, "label": label}}}
        return {"type": "hello", "version": 2, "label": label}

    def opening(self, label, start_updates):
        """hello, register client 1, and (for a fan-out client) startUpdates, as a CLLocationManager sends them."""
        if self.version == 1:
            messages = [self.hello(label),
                        {"request": {"id": 1, "body": {"register": {"client": {"rawValue": 1}, "label": "b"}}}}]
            if start_updates:
                messages.append({"request": {"id": 2, "body": {"command": {"client": {"rawValue": 1}, "command": {
                    "startUpdates": {"_0": {"desiredAccuracy": -1, "distanceFilter": -1, "activityType": 1,
                                            "pausesAutomatically": False}}}}}}})
            return messages
        messages = [self.hello(label),
                    {"type": "request", "id": 1, "body": {"type": "register", "client": 1, "label": "b"}}]
        if start_updates:
            messages.append({"type": "request", "id": 2, "body": {"type": "command", "client": 1, "command": {
                "type": "startUpdates", "request": {"desiredAccuracy": -1, "distanceFilter": -1, "activityType": 1,
                                                    "pausesAutomatically": False}}}})
        return messages

    def acknowledge(self, request_id, sequence):
        if self.version == 1:
            return {"request": {"id": request_id, "body": {"acknowledge": {"sequence": sequence}}}}
        return {"type": "request", "id": request_id, "body": {"type": "acknowledge", "sequence": sequence}}

    def status(self, request_id):
        if self.version == 1:
            return {"request": {"id": request_id, "body": {"status": {}}}}
        return {"type": "request", "id": request_id, "body": {"type": "status"}}

    def authorization_level(self, body):
        if self.version == 1:
            return body["authorization"]["_0"]["level"]
        return body["authorization"]["level"]

    def hello_of(self, message):
        return message["hello"]["_0"] if self.version == 1 else message

    def event_of(self, message):
        """The event's object: its `body` and `sequence`."""
        return message["event"] if self.version == 1 else message

    def is_reply(self, message):
        return "reply" in message if self.version == 1 else message.get("type") == "reply"


protocol = Protocol(2)


BASE = 1_800_000_000.0  # a fixed UTC second; epoch k is stamped BASE + k * 0.1 s
REFERENCE_2001 = 978_307_200.0  # Swift's Date reference, in Unix seconds


def nmea(body):
    checksum = 0
    for byte in body.encode():
        checksum ^= byte
    return "$%s*%02X\r\n" % (body, checksum)


def epoch_sentences(k):
    stamp = BASE + k * INTERVAL
    t = time.gmtime(int(stamp))
    hundredths = int(round((stamp - int(stamp)) * 100))
    hhmmss = "%02d%02d%02d.%02d" % (t.tm_hour, t.tm_min, t.tm_sec, hundredths)
    ddmmyy = "%02d%02d%02d" % (t.tm_mday, t.tm_mon, t.tm_year % 100)
    minutes = 31.2 + (k % 1000) * 0.0001  # moves ~0.2 m an epoch: never a duplicate position
    lat = "52%07.4f" % minutes
    return (nmea("GPRMC,%s,A,%s,N,01324.3000,E,0.5,0.0,%s,,,A" % (hhmmss, lat, ddmmyy))
            + nmea("GPGGA,%s,%s,N,01324.3000,E,1,08,0.9,34.0,M,40.0,M,," % (hhmmss, lat))).encode()


def epoch_of_unix(seconds):
    return int(round((seconds - BASE) / INTERVAL))


class Outlet:
    """One system's connection point to the receiver: a listener, its connections, and when each epoch
    was written to them."""

    def __init__(self, lock, listener=None):
        """A loopback TCP listener on a free port, or `listener` (bound and listening: Benchmarks/geoclue's
        Unix socket, which has no port)."""
        if listener is None:
            listener = socket.socket()
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind(("127.0.0.1", 0))
            listener.listen(8)
        self.listener = listener
        self.port = listener.getsockname()[1] if listener.family == socket.AF_INET else None
        self.clients = []
        self.sent = {}
        self.lock = lock

    def accept(self, running):
        while running():
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if client.family == socket.AF_INET:
                client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self.lock:
                self.clients.append(client)

    def write(self, k, data):
        self.sent[k] = time.monotonic()
        for client in list(self.clients):
            try:
                client.sendall(data)
            except OSError:
                self.clients.remove(client)


class Feed:
    """The receiver: one outlet per system (`outlets["gpsd"]`, `outlets["locationd"]`), the same epochs to
    both. Each epoch is stamped per outlet just before it is written there, and the outlet written first
    alternates, so neither system's latency counts the other's write (since 2026-11-25: locationd opens
    its source with its first client, so it used to connect last in every round and be written second).
    During a system's turn only its outlet is written (`active`): the other daemon then has nothing to
    parse while the measured one works. Before 2026-11-25, 09:20 gpsd, which keeps reading its device
    after its last client has gone, parsed every epoch of locationd's later turns (`perf stat`: 0.75-0.9 ms
    of CPU a second through a 25 s turn), while locationd's source is closed in gpsd's turns."""

    def __init__(self):
        self.lock = threading.Lock()
        self.outlets = {system: Outlet(self.lock) for system in ("gpsd", "locationd")}
        self.active = set(self.outlets)
        self.k = 0
        self.running = True
        for outlet in self.outlets.values():
            threading.Thread(target=outlet.accept, args=(lambda: self.running,), daemon=True).start()
        threading.Thread(target=self.pump, daemon=True).start()

    def pump(self):
        next_at = time.monotonic()
        while self.running:
            data = epoch_sentences(self.k)
            # The outlet written first alternates (gpsd first on even epochs here).
            order = list(self.outlets) if self.k % 2 == 0 else list(reversed(self.outlets))
            with self.lock:
                for system in order:
                    if system in self.active:
                        self.outlets[system].write(self.k, data)
            self.k += 1
            next_at += INTERVAL
            time.sleep(max(0, next_at - time.monotonic()))


def frame(message):
    payload = json.dumps(message, separators=(",", ":")).encode()
    return struct.pack(">I", len(payload)) + payload


STAMP = re.compile(rb'"timestamp":(-?[0-9.eE+-]+)')
TPV_TIME = re.compile(rb'"class":"TPV".*?"time":"([0-9T:.\-]+)Z"')


class Client:
    def __init__(self, kind, sock):
        self.kind = kind
        self.sock = sock
        self.buffer = b""
        self.arrivals = {}  # epoch -> monotonic arrival
        self.authorization = []  # (monotonic, level)
        self.acks = 0
        self.connected = True


def parse_iso(text):
    date, clock = text.decode().split("T")
    year, month, day = (int(x) for x in date.split("-"))
    hour, minute, second = clock.split(":")
    whole = time.mktime((year, month, day, int(hour), int(minute), 0, 0, 0, 0)) - time.timezone
    return whole + float(second)


class Clients:
    """N clients of locationd or gpsd on one selector loop (one thread)."""

    def __init__(self):
        self.selector = selectors.DefaultSelector()
        self.clients = []
        self.running = True
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def add_locationd(self, path, start_updates=True):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(path)
        for message in protocol.opening("bench", start_updates):
            sock.sendall(frame(message))
        sock.setblocking(False)
        client = Client("locationd", sock)
        self.clients.append(client)
        self.selector.register(sock, selectors.EVENT_READ, client)
        return client

    def add_gpsd(self, port):
        sock = socket.socket()
        try:
            sock.connect(("127.0.0.1", port))
            sock.sendall(b'?WATCH={"enable":true,"json":true}\n')
        except OSError:
            return None
        sock.setblocking(False)
        client = Client("gpsd", sock)
        self.clients.append(client)
        self.selector.register(sock, selectors.EVENT_READ, client)
        return client

    def loop(self):
        while self.running:
            # Every ready socket is read and stamped first, then parsed: parsing one client's message
            # (a regex, a float, for gpsd an ISO time) must not delay the next client's stamp, and the
            # two protocols cost the parser differently.
            received = []
            for key, _ in self.selector.select(timeout=0.2):
                client = key.data
                now = time.monotonic()
                try:
                    data = client.sock.recv(1 << 16)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    data = b""
                received.append((client, now, data))
            for client, now, data in received:
                if not data:
                    client.connected = False
                    self.selector.unregister(client.sock)
                    continue
                client.buffer += data
                if client.kind == "gpsd":
                    *lines, client.buffer = client.buffer.split(b"\n")
                    for line in lines:
                        match = TPV_TIME.search(line)
                        if match:
                            client.arrivals.setdefault(epoch_of_unix(parse_iso(match.group(1))), now)
                else:
                    self.frames(client, now)

    def frames(self, client, now):
        while len(client.buffer) >= 4:
            (length,) = struct.unpack(">I", client.buffer[:4])
            if len(client.buffer) < 4 + length:
                return
            payload = client.buffer[4:4 + length]
            client.buffer = client.buffer[4 + length:]
            if b'"deliver"' in payload:
                for match in STAMP.finditer(payload):
                    client.arrivals.setdefault(epoch_of_unix(float(match.group(1)) + REFERENCE_2001), now)
            elif b'"authorization"' in payload and b'"event"' in payload:
                event = protocol.event_of(json.loads(payload))
                client.authorization.append((now, protocol.authorization_level(event["body"])))
                if event.get("sequence") is not None:
                    client.acks += 1
                    client.sock.sendall(frame(protocol.acknowledge(1_000_000 + client.acks, event["sequence"])))
            elif b'"hello"' in payload:
                client.hello = protocol.hello_of(json.loads(payload))

    def close(self):
        self.running = False
        self.thread.join()
        for client in self.clients:
            client.sock.close()


def percentile(values, p):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100.0 * len(ordered)))]


def cpu_seconds(pid):
    fields = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wakeups(pid):
    """Context switches of each thread of the process so far, by thread id: each is the thread going
    to sleep or being put off the CPU, so their growth over an idle period counts its wake-ups."""
    counts = {}
    for task in os.listdir("/proc/%d/task" % pid):
        try:
            counts[task] = sum(int(line.split()[1]) for line in open("/proc/%d/task/%s/status" % (pid, task))
                               if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")))
        except OSError:
            pass  # a thread that ended meanwhile
    return counts


def wakeups_since(pid, before):
    """Wake-ups since `before` (a `wakeups` result): growth of the threads still there, plus new ones."""
    return sum(count - before.get(task, 0) for task, count in wakeups(pid).items())


def rss_kib(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def measure(sent, clients, first, last):
    """Latencies (ms) and drops over epochs [first, last) for clients that were served."""
    latencies, drops, served = [], 0, 0
    for client in clients:
        if not any(first <= k < last for k in client.arrivals):
            continue
        served += 1
        for k in range(first, last):
            arrival = client.arrivals.get(k)
            if arrival is None:
                drops += 1
            else:
                latencies.append((arrival - sent[k]) * 1000)
    return latencies, drops, served


def run_round(system, n, seconds, feed, socket_path, gpsd_port, daemon_pid, app_ready):
    """One system's clients for `seconds`: latencies, drops, served, locationd's CPU % and RSS."""
    with feed.lock:
        feed.active = {system}
    try:
        return measure_round(system, n, seconds, feed, socket_path, gpsd_port, daemon_pid, app_ready)
    finally:
        with feed.lock:
            feed.active = set(feed.outlets)


def measure_round(system, n, seconds, feed, socket_path, gpsd_port, daemon_pid, app_ready):
    group = Clients()
    made = []
    for _ in range(n):
        client = group.add_locationd(socket_path) if system == "locationd" else group.add_gpsd(gpsd_port)
        if client:
            made.append(client)
    if system == "locationd":
        app_ready(made)
    time.sleep(3)  # warm-up: every client registered and receiving
    first = feed.k + 1
    cpu0, wall0 = cpu_seconds(daemon_pid), time.monotonic()
    time.sleep(seconds)
    last = feed.k - 2
    cpu = (cpu_seconds(daemon_pid) - cpu0) / (time.monotonic() - wall0) * 100 if system == "locationd" else None
    rss = rss_kib(daemon_pid) if system == "locationd" else None
    time.sleep(1)  # the last epochs' stragglers
    latencies, drops, served = measure(feed.outlets[system].sent, made, first, last)
    group.close()
    time.sleep(2)
    return latencies, drops, served, last - first, cpu, rss


def run_fanout(args, feed, socket_path, gpsd_port, daemon_pid, app_ready):
    """Per N, the two systems take turns in `--rounds` rounds (gpsd first in every other round), each
    system `--seconds` in all: a stretch of a busy machine falls on both alike. A row pools its rounds."""
    rows = []
    for n in args.clients:
        rounds = args.rounds if n <= 64 else 1  # gpsd serves 64 at most: larger rows do not compare
        pooled = {system: dict(latencies=[], drops=0, served=0, epochs=0, cpu=[], rss=None, p50s=[])
                  for system in ("locationd", "gpsd")}
        for r in range(rounds):
            order = ("locationd", "gpsd") if r % 2 == 0 else ("gpsd", "locationd")
            for system in order:
                latencies, drops, served, epochs, cpu, rss = run_round(
                    system, n, args.seconds / rounds, feed, socket_path, gpsd_port, daemon_pid, app_ready)
                row = pooled[system]
                row["latencies"] += latencies
                row["drops"] += drops
                row["served"] = max(row["served"], served)
                row["epochs"] += epochs
                row["p50s"].append(percentile(latencies, 50))
                if cpu is not None:
                    row["cpu"].append(cpu)
                    row["rss"] = rss
        for system in ("locationd", "gpsd"):
            row = pooled[system]
            latencies = row["latencies"]
            cpu = sum(row["cpu"]) / len(row["cpu"]) if row["cpu"] else None
            rows.append(dict(n=n, system=system, served=row["served"], epochs=row["epochs"], rounds=rounds,
                             p50=percentile(latencies, 50), p99=percentile(latencies, 99),
                             p999=percentile(latencies, 99.9), drops=row["drops"], cpu=cpu, rss=row["rss"],
                             round_p50=row["p50s"], load=os.getloadavg()[0]))
            r = rows[-1]
            print("%5d %-9s served %4d  p50 %7.2f  p99 %7.2f  p99.9 %7.2f ms  drops %d%s  (rounds' p50 %s; load %.1f)" % (
                n, system, r["served"], r["p50"], r["p99"], r["p999"], r["drops"],
                "  cpu %.1f%%  rss %d KiB" % (cpu, r["rss"]) if cpu is not None else "",
                " ".join("%.2f" % p for p in r["round_p50"]), r["load"]), flush=True)
    return rows


def measure_idle(args, pid):
    """locationd idle for `args.idle_seconds`, no client (its source closed): CPU, wake-ups, RSS."""
    cpu0, wall0, woke0 = cpu_seconds(pid), time.monotonic(), wakeups(pid)
    time.sleep(args.idle_seconds)
    idle_wall = time.monotonic() - wall0
    idle_cpu = (cpu_seconds(pid) - cpu0) / idle_wall * 100
    idle_wakeups = wakeups_since(pid, woke0) / idle_wall
    idle_rss = rss_kib(pid)
    print("idle: %.0f s  cpu %.3f%% (%.2f s of CPU; the clock ticks at 1/%d s)  wake-ups %.2f/s  rss %d KiB" % (
        idle_wall, idle_cpu, cpu_seconds(pid) - cpu0, os.sysconf("SC_CLK_TCK"), idle_wakeups, idle_rss),
        flush=True)
    return dict(idle_seconds=idle_wall, idle_cpu=idle_cpu, idle_wakeups_per_second=idle_wakeups, idle_rss=idle_rss)


def stop(daemon, gpsd, feed):
    daemon.send_signal(signal.SIGTERM)
    daemon.wait(timeout=10)
    gpsd.terminate()
    gpsd.wait(timeout=10)
    feed.running = False


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bin")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--clients", default="8,64,256,1000")
    parser.add_argument("--rounds", type=int, default=6,
                        help="per N up to 64, the systems take turns this many times (each --seconds in all)")
    parser.add_argument("--trials", type=int, default=1000)
    parser.add_argument("--out", default=None)
    parser.add_argument("--idle-seconds", type=float, default=60, help="the idle measurement (issue 10: 60 s)")
    parser.add_argument("--idle-only", action="store_true", help="measure idle cost only, then stop")
    parser.add_argument("--fanout-only", action="store_true",
                        help="measure the fan-out rows only: no idle period, propagation trials or status")
    parser.add_argument("--protocol", type=int, choices=(1, 2), default=2,
                        help="locationd's protocol version: 1 for a daemon before decision 0068 (a before/after run)")
    parser.add_argument("--pin", action="store_true",
                        help="both daemons on the last CPU, this driver on the first (needs 2 CPUs)")
    args = parser.parse_args()
    protocol.version = args.protocol
    args.clients = [int(x) for x in args.clients.split(",")]
    pin = []
    if args.pin:
        cpus = sorted(os.sched_getaffinity(0))
        if len(cpus) < 2:
            parser.error("--pin needs two CPUs")
        os.sched_setaffinity(0, {cpus[0]})
        pin = ["taskset", "-c", str(cpus[-1])]
    directory = tempfile.mkdtemp(prefix="locationd-bench-")
    # At exit, however the run ends: on its normal paths after stop() has waited for locationd, which
    # unlinks its socket and checkpoints its database as it exits.
    atexit.register(shutil.rmtree, directory, ignore_errors=True)
    socket_path = directory + "/l.sock"
    environment = dict(os.environ, CORELOCATION_DAEMON_SOCKET=socket_path, CORELOCATION_PROMPT="never",
                       CORELOCATION_DATABASE=directory + "/app.sqlite")

    feed = Feed()
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    gpsd_port = probe.getsockname()[1]
    probe.close()
    gpsd = subprocess.Popen(pin + ["gpsd", "-N", "-b", "-S", str(gpsd_port), "tcp://127.0.0.1:%d" % feed.outlets["gpsd"].port],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    daemon = subprocess.Popen(pin + [args.bin + "/locationd", "--socket", socket_path, "--database", directory + "/d.sqlite",
                               "--config", "/dev/null", "--source", "tcp://127.0.0.1:%d" % feed.outlets["locationd"].port,
                               "--log-level", "warning"], env=environment, stderr=subprocess.DEVNULL)
    for _ in range(200):
        if os.path.exists(socket_path):
            break
        time.sleep(0.05)
    time.sleep(1)

    # Idle: no client, the source closed.
    idle = None if args.fanout_only else measure_idle(args, daemon.pid)
    if args.idle_only:
        stop(daemon, gpsd, feed)
        if args.out:
            with open(args.out, "w") as handle:
                json.dump(idle, handle, indent=2)
        return

    # The app the benchmark's clients are (this interpreter), authorized once.
    authorized = {}

    def app_ready(made):
        if authorized or not made:
            return
        deadline = time.monotonic() + 5
        while not hasattr(made[0], "hello") and time.monotonic() < deadline:
            time.sleep(0.01)
        authorized["app"] = made[0].hello["app"]
        subprocess.run([args.bin + "/locationctl", "authorize", authorized["app"], "when-in-use"], env=environment,
                       stdout=subprocess.DEVNULL, check=True)

    rows = run_fanout(args, feed, socket_path, gpsd_port, daemon.pid, app_ready)
    if args.fanout_only:
        stop(daemon, gpsd, feed)
        if args.out:
            with open(args.out, "w") as handle:
                json.dump(dict(rows=rows), handle, indent=2)
        return

    # Decision propagation.
    group = Clients()
    client = group.add_locationd(socket_path)
    app_ready([client])
    app = authorized["app"]
    propagation, after_return, trials = [], 0, 0
    for _ in range(args.trials):
        deadline = time.monotonic() + 5
        count = len(client.arrivals)
        while len(client.arrivals) <= count and time.monotonic() < deadline:
            time.sleep(0.005)
        events = len(client.authorization)
        started = time.monotonic()
        subprocess.run([args.bin + "/locationctl", "authorize", app, "deny"], env=environment,
                       stdout=subprocess.DEVNULL, check=True)
        returned = time.monotonic()
        trials += 1
        told = next((t for t, level in client.authorization[events:] if level == "denied"), None)
        if told is not None:
            propagation.append(((told - started) * 1000, (returned - started) * 1000, (told - returned) * 1000))
        time.sleep(0.2)  # 2 epochs: a fix after the command returned would have come
        after_return += sum(1 for t in client.arrivals.values() if t > returned)
        subprocess.run([args.bin + "/locationctl", "authorize", app, "when-in-use"], env=environment,
                       stdout=subprocess.DEVNULL, check=True)
    group.close()
    told_ms = [p[0] for p in propagation]
    command_ms = [p[1] for p in propagation]
    after_ms = [p[2] for p in propagation]
    print("propagation: %d trials, told %d; command start→callback p50 %.1f p99 %.1f ms; command wall p50 %.1f "
          "p99 %.1f ms; callback−return p50 %.1f p99 %.1f ms (negative: before it returned); fixes after return %d" % (
              trials, len(propagation), percentile(told_ms, 50), percentile(told_ms, 99),
              percentile(command_ms, 50), percentile(command_ms, 99), percentile(after_ms, 50),
              percentile(after_ms, 99), after_return), flush=True)

    # locationctl status, wall time of the command (a new process each time) and of the request alone.
    walls = []
    for _ in range(30):
        started = time.monotonic()
        subprocess.run([args.bin + "/locationctl", "status"], env=environment, stdout=subprocess.DEVNULL, check=True)
        walls.append((time.monotonic() - started) * 1000)
    requests = []
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(socket_path)
    sock.sendall(frame(protocol.hello("status")))
    reader = sock.makefile("rb")

    def read_frame():
        (length,) = struct.unpack(">I", reader.read(4))
        return json.loads(reader.read(length))

    read_frame()
    for i in range(100):
        started = time.monotonic()
        sock.sendall(frame(protocol.status(i + 1)))
        while not protocol.is_reply(read_frame()):
            pass
        requests.append((time.monotonic() - started) * 1000)
    sock.close()
    print("status: locationctl status wall p50 %.1f p99 %.1f ms; request round trip p50 %.2f p99 %.2f ms" % (
        percentile(walls, 50), percentile(walls, 99), percentile(requests, 50), percentile(requests, 99)), flush=True)

    stop(daemon, gpsd, feed)
    summary = dict(rows=rows, idle_cpu=idle["idle_cpu"], idle_wakeups_per_second=idle["idle_wakeups_per_second"],
                   idle_rss=idle["idle_rss"], propagation=dict(
        trials=trials, told=len(propagation), told_p50=percentile(told_ms, 50), told_p99=percentile(told_ms, 99),
        command_p50=percentile(command_ms, 50), command_p99=percentile(command_ms, 99),
        after_return_fixes=after_return), status_wall_p50=percentile(walls, 50), status_wall_p99=percentile(walls, 99),
        status_request_p50=percentile(requests, 50), status_request_p99=percentile(requests, 99))
    if args.out:
        with open(args.out, "w") as handle:
            json.dump(summary, handle, indent=2)


if __name__ == "__main__":
    main()
