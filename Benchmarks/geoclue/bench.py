#!/usr/bin/python3
"""locationd as GeoClue2 against geoclue 2.6 itself, each in its own turn on one private bus (issue 38, "Measured").

One NMEA feed (Benchmarks/locationd's: an epoch every 100 ms, RMC + GGA, the position moving 0.2 m an epoch) is read
by locationd (`--source tcp://…`, `--geoclue ADDRESS`) in its turn and by geoclue 2.6 (Debian's
`/usr/libexec/geoclue -u SOCKET`, its NMEA-socket source) in its own. For N GeoClue clients (each its own bus
connection, as apps are: GetClient, DesktopId `gnome-datetime-panel` — a system component in Debian's
geoclue.conf, so geoclue asks no agent — RequestedAccuracyLevel EXACT, Start) it measures, on this process's
monotonic clock, the time from the feed's write of an epoch to the client's `LocationUpdated` (stamped on arrival;
the epoch is then read from the new Location's Latitude): p50 / p99 and drops. In locationd's turn one Apple-API
client (the socket protocol, as a CLLocationManager) takes the same epochs: the cost of the GeoClue path beside
the library's. Memory per client: (the daemon's RSS with N clients − before them) / N.

Usage: bench.py BIN_DIR [--clients 1,8,64,1000] [--seconds 20] [--systems locationd,geoclue]
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

import gi  # noqa: F401  (python3-gi)
from gi.repository import Gio, GLib

import importlib.util  # noqa: E402

# Benchmarks/locationd/bench.py: the NMEA epochs, the outlets, the socket-protocol clients, percentiles.
_spec = importlib.util.spec_from_file_location(
    "locationd_bench", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "locationd", "bench.py"))
base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(base)

NAME = "org.freedesktop.GeoClue2"
MANAGER = "/org/freedesktop/GeoClue2/Manager"
CLIENT = "org.freedesktop.GeoClue2.Client"
LOCATION = "org.freedesktop.GeoClue2.Location"
PROPERTIES = "org.freedesktop.DBus.Properties"
GEOCLUE = "/usr/libexec/geoclue"
GEOCLUE_AGENT = "/usr/libexec/geoclue-2.0/demos/agent"


def epoch_of(location, latest):
    """The epoch a Location object reports: by its Timestamp when that is the receiver's (the feed's epochs are
    stamped on 2027-01-15: locationd passes the receiver's time on), else by its Latitude (geoclue 2.6 stamps a
    fix with the time it read it)."""
    seconds, micros = location["Timestamp"]
    stamp = seconds + micros / 1e6
    if abs(stamp - base.BASE) < 86400:
        return base.epoch_of_unix(stamp)
    return epoch_of_latitude(location["Latitude"], latest)


def epoch_of_latitude(latitude, latest):
    """The epoch whose GGA/RMC carried `latitude` (minutes 31.2 + (k mod 1000) * 0.0001), nearest `latest`."""
    residue = int(round(((latitude - 52.0) * 60.0 - 31.2) / 0.0001)) % 1000
    return latest + 500 - ((latest + 500 - residue) % 1000)


class Feed(base.Feed):
    """The same epochs to locationd (TCP) and geoclue (Unix socket); only the system in its turn is written."""

    def __init__(self, unix_path):
        self.lock = threading.Lock()
        # geoclue reads NMEA from a Unix socket it connects to (`geoclue -u PATH`).
        unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        unix.bind(unix_path)
        unix.listen(8)
        self.outlets = {"locationd": base.Outlet(self.lock), "geoclue": base.Outlet(self.lock, unix)}
        self.active = set()
        self.k = 0
        self.running = True
        for outlet in self.outlets.values():
            threading.Thread(target=outlet.accept, args=(lambda: self.running,), daemon=True).start()
        threading.Thread(target=self.pump, daemon=True).start()


class GeoClueClients:
    """N GeoClue clients, each on its own bus connection, served by one GLib main loop on its own thread."""

    def __init__(self, address, feed, system):
        self.address = address
        self.feed = feed
        self.system = system
        self.context = GLib.MainContext.new()
        self.loop = GLib.MainLoop.new(self.context, False)
        self.arrivals = []  # per client: epoch -> monotonic arrival
        self.connections = []
        self.errors = []
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        self.context.push_thread_default()
        self.loop.run()

    def start(self, n):
        done = threading.Event()

        def make(*_):
            # All clients made first, then all started at once (asynchronously): started one by one, the later
            # ones were made while the earlier ones' updates took this thread, and making 1 000 took minutes.
            made = []
            for index in range(n):
                try:
                    made.append(self.add(index))
                except GLib.Error as error:
                    self.errors.append(Gio.DBusError.get_remote_error(error) or str(error))
            waiting = [len(made)]

            def on_started(source, result, *_):
                try:
                    source.call_finish(result)
                except GLib.Error as error:
                    self.errors.append(Gio.DBusError.get_remote_error(error) or str(error))
                waiting[0] -= 1
                if waiting[0] == 0:
                    done.set()

            for connection, path in made:
                connection.call(NAME, path, CLIENT, "Start", None, None, Gio.DBusCallFlags.NONE, 60000, None,
                                on_started)
            if not made:
                done.set()
            return False

        self.thread.start()
        source = GLib.idle_source_new()
        source.set_callback(make)
        source.attach(self.context)
        done.wait()

    def call(self, connection, path, interface, member, args=None, reply="()"):
        return connection.call_sync(NAME, path, interface, member, args, GLib.VariantType(reply),
                                    Gio.DBusCallFlags.NONE, 25000, None)

    def add(self, index):
        connection = Gio.DBusConnection.new_for_address_sync(
            self.address,
            Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
        self.connections.append(connection)
        arrivals = {}
        self.arrivals.append(arrivals)
        path = self.call(connection, MANAGER, "org.freedesktop.GeoClue2.Manager", "GetClient", None, "(o)")[0]
        for name, value in (("DesktopId", GLib.Variant("s", "gnome-datetime-panel")),
                            ("RequestedAccuracyLevel", GLib.Variant("u", 8))):
            self.call(connection, path, PROPERTIES, "Set", GLib.Variant("(ssv)", (CLIENT, name, value)))

        def on_update(_c, _sender, _path, _iface, _member, parameters):
            now = time.monotonic()
            new = parameters.unpack()[1]

            def on_location(source, result, *_):
                try:
                    values = source.call_finish(result).unpack()[0]
                except GLib.Error:
                    return
                arrivals.setdefault(epoch_of(values, self.feed.k), now)

            connection.call(NAME, new, PROPERTIES, "GetAll", GLib.Variant("(s)", (LOCATION,)),
                            GLib.VariantType("(a{sv})"), Gio.DBusCallFlags.NONE, 25000, None, on_location)

        connection.signal_subscribe(NAME, CLIENT, "LocationUpdated", path, None, Gio.DBusSignalFlags.NONE, on_update)
        return connection, path

    def close(self):
        def stop(*_):
            for connection in self.connections:
                connection.close_sync(None)
            self.loop.quit()
            return False

        source = GLib.idle_source_new()
        source.set_callback(stop)
        source.attach(self.context)
        self.thread.join(10)


def measure(sent, arrivals, first, last):
    latencies, drops, served = [], 0, 0
    for got in arrivals:
        if not any(first <= k < last for k in got):
            continue
        served += 1
        for k in range(first, last):
            if k in got and k in sent:
                latencies.append((got[k] - sent[k]) * 1000)
            elif k in sent:
                drops += 1
    return latencies, drops, served


def private_bus(directory):
    config = os.path.join(directory, "bus.conf")
    with open(config, "w") as handle:
        handle.write("""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:path=%s/bus</listen>
<limit name="max_connections_per_user">8192</limit><limit name="max_completed_connections">8192</limit>
<limit name="max_match_rules_per_connection">4096</limit>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/>
<allow own="*"/></policy></busconfig>
""" % directory)
    bus = subprocess.Popen(["dbus-daemon", "--config-file=" + config, "--nofork", "--print-address=1"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    address = bus.stdout.readline().decode().strip()
    return bus, address


def wait_for_name(address, timeout=15):
    connection = Gio.DBusConnection.new_for_address_sync(
        address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
        None, None)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        owner = connection.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                     "NameHasOwner", GLib.Variant("(s)", (NAME,)), GLib.VariantType("(b)"),
                                     Gio.DBusCallFlags.NONE, 5000, None)[0]
        if owner:
            return True
        time.sleep(0.1)
    return False


def turn(system, n, args, feed, address, directory):
    """One system's turn with N clients: its daemon started, warmed up, measured, stopped."""
    environment = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=address, CORELOCATION_PROMPT="never")
    log = open(os.path.join(directory, "%s-%d.log" % (system, n)), "w")
    apple = None
    if system == "locationd":
        sock = os.path.join(directory, "l.sock")
        database = os.path.join(directory, "l-%d.sqlite" % n)
        daemon = subprocess.Popen(
            [os.path.join(args.bin, "locationd"), "--socket", sock, "--database", database, "--config", "/dev/null",
             "--source", "tcp://127.0.0.1:%d" % feed.outlets["locationd"].port, "--geoclue", address],
            stdout=log, stderr=log, env=environment)
        if not wait_for_name(address):
            raise SystemExit("locationd did not take %s (see %s)" % (NAME, log.name))
        python = os.path.realpath(sys.executable)
        environment["CORELOCATION_DAEMON_SOCKET"] = sock
        subprocess.run([os.path.join(args.bin, "locationctl"), "authorize", python, "when-in-use"], env=environment,
                       check=True, stdout=subprocess.DEVNULL)
    else:
        daemon = subprocess.Popen([GEOCLUE, "-t", "0", "-u", feed.outlets["geoclue"].listener.getsockname()],
                                  stdout=log, stderr=log, env=environment)
        if not wait_for_name(address):
            raise SystemExit("geoclue did not take %s (see %s)" % (NAME, log.name))
        # geoclue 2.6 holds every GetClient until an agent of the caller's user is there (its "no agent for UID");
        # Debian's demo agent (a whitelisted agent id) allows every app. locationd needs none.
        agent = subprocess.Popen([GEOCLUE_AGENT], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 env=environment)
        time.sleep(1)
    feed.active = {system}
    time.sleep(1)
    before = base.rss_kib(daemon.pid)
    clients = GeoClueClients(address, feed, system)
    clients.start(n)
    if system == "locationd":
        apple = base.Clients()
        apple_client = apple.add_locationd(sock)
    # Warm-up: 3 s, and until every client has had an update (at most 60 s): at 1 000 clients the last ones start
    # seconds after the first, and a window opened before that measured clients not yet served.
    time.sleep(3)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not all(clients.arrivals):
        time.sleep(0.2)
    first = feed.k
    cpu_before = base.cpu_seconds(daemon.pid)
    time.sleep(args.seconds)
    last = feed.k - max(1, int(round(0.5 / base.INTERVAL)))  # the last half second may still be on its way
    cpu = base.cpu_seconds(daemon.pid) - cpu_before
    rss = base.rss_kib(daemon.pid)
    time.sleep(1)
    sent = dict(feed.outlets[system].sent)
    latencies, drops, served = measure(sent, clients.arrivals, first, last)
    row = {
        "system": system, "clients": n, "served": served, "errors": sorted(set(clients.errors)),
        "p50_ms": base.percentile(latencies, 50), "p99_ms": base.percentile(latencies, 99), "drops": drops,
        "epochs": last - first, "rss_before_kib": before, "rss_kib": rss,
        "kib_per_client": (rss - before) / n if n else 0, "cpu_s_per_s": cpu / args.seconds,
    }
    if apple is not None:
        apple_latencies, _, _ = measure(sent, [apple_client.arrivals], first, last)
        row["apple_p50_ms"] = base.percentile(apple_latencies, 50)
        row["apple_p99_ms"] = base.percentile(apple_latencies, 99)
        apple.close()
    clients.close()
    feed.active = set()
    daemon.terminate()
    try:
        daemon.wait(10)
    except subprocess.TimeoutExpired:
        daemon.kill()
    if system == "geoclue":
        agent.terminate()
        agent.wait(10)
    log.close()
    return row


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bin")
    parser.add_argument("--clients", default="1,8,64,1000")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--systems", default="locationd,geoclue")
    parser.add_argument("--interval", type=float, default=0.1,
                        help="seconds between two epochs of the feed (0.1: 10 Hz; 1: a usual receiver)")
    parser.add_argument("--out")
    args = parser.parse_args()
    base.INTERVAL = args.interval
    directory = tempfile.mkdtemp(prefix="geoclue-bench-")
    bus, address = private_bus(directory)
    feed = Feed(os.path.join(directory, "nmea.sock"))
    rows = []
    try:
        for n in [int(x) for x in args.clients.split(",")]:
            for system in args.systems.split(","):
                row = turn(system, n, args, feed, address, directory)
                rows.append(row)
                line = ("%-9s N=%-5d served %4d  p50 %7.2f ms  p99 %7.2f ms  drops %5d/%d  %6.1f KiB/client  "
                        "cpu %.3f s/s" % (row["system"], n, row["served"], row["p50_ms"], row["p99_ms"], row["drops"],
                                          row["epochs"] * row["served"], row["kib_per_client"], row["cpu_s_per_s"]))
                if "apple_p50_ms" in row:
                    line += "  | Apple-API client p50 %.2f p99 %.2f ms" % (row["apple_p50_ms"], row["apple_p99_ms"])
                if row["errors"]:
                    line += "  errors: " + ", ".join(row["errors"])
                print(line, flush=True)
    finally:
        feed.running = False
        bus.terminate()
    if args.out:
        with open(args.out, "w") as handle:
            json.dump(rows, handle, indent=2)


if __name__ == "__main__":
    main()
