"""The peer: GeoClue 2 (Debian geoclue-2.0) on the benchmark's private bus, its Wi-Fi source reading a wpa_supplicant
mock (wpa_supplicant.py) and asking the same stand-in. GeoClue reads /etc/geoclue/geoclue.conf only, so it runs in
a mount namespace of its own (unshare -m) with the benchmark's configuration bind-mounted there; the machine's file
is untouched. Timed from the ScanDone signal to the client's LocationUpdated (signals, no polling)."""
import os
import subprocess
import time

import dbus
import dbus.mainloop.glib
from gi.repository import GLib

HERE = os.path.dirname(os.path.abspath(__file__))
GEOCLUE = "/usr/libexec/geoclue"
DESKTOP_ID = "corelocation-bench"
AGENT_ID = "corelocation-bench-agent"


def available():
    return os.path.exists(GEOCLUE)


def config(url):
    return f"""[agent]
whitelist={AGENT_ID}
[network-nmea]
enable=false
[3g]
enable=false
[cdma]
enable=false
[modem-gps]
enable=false
[wifi]
enable=true
url={url}
submit-data=false
submission-nick=geoclue
[compass]
enable=false
[{DESKTOP_ID}]
allowed=true
system=true
users=
"""


def run(directory, bus, url, aps, truths, distance, solve):
    conf = os.path.join(directory, "geoclue.conf")
    with open(conf, "w") as f:
        f.write(config(url))
    wpa = subprocess.Popen(["/usr/bin/python3", "-m", "dbusmock", "--template", os.path.join(HERE, "wpa_supplicant.py")],
                           env=bus.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    bus.wait_for("fi.w1.wpa_supplicant1")
    log = open(os.path.join(directory, "geoclue.log"), "w")
    geoclue = subprocess.Popen(
        ["unshare", "-m", "sh", "-c", f"mount --bind '{conf}' /etc/geoclue/geoclue.conf && exec {GEOCLUE} -t 0"],
        env=dict(bus.env, G_MESSAGES_DEBUG="all"), stdout=log, stderr=log)
    bus.wait_for("org.freedesktop.GeoClue2")
    agent = subprocess.Popen(["/usr/bin/python3", os.path.join(HERE, "agent.py"), AGENT_ID], env=bus.env,
                             stdout=subprocess.PIPE, text=True)
    ready = agent.stdout.readline().strip()
    if ready != "READY":
        raise SystemExit(f"the GeoClue agent did not register: {ready}")

    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    connection = dbus.bus.BusConnection(bus.address)
    wpa_mock = dbus.Interface(connection.get_object("fi.w1.wpa_supplicant1", "/fi/w1/wpa_supplicant1"),
                              "org.freedesktop.DBus.Mock")
    manager = dbus.Interface(connection.get_object("org.freedesktop.GeoClue2", "/org/freedesktop/GeoClue2/Manager"),
                             "org.freedesktop.GeoClue2.Manager")
    client_path = manager.CreateClient()
    client_object = connection.get_object("org.freedesktop.GeoClue2", client_path)
    properties = dbus.Interface(client_object, "org.freedesktop.DBus.Properties")
    properties.Set("org.freedesktop.GeoClue2.Client", "DesktopId", DESKTOP_ID)
    properties.Set("org.freedesktop.GeoClue2.Client", "RequestedAccuracyLevel", dbus.UInt32(8))
    updates = []

    def on_update(old, new):
        location = dbus.Interface(connection.get_object("org.freedesktop.GeoClue2", new),
                                  "org.freedesktop.DBus.Properties")
        values = location.GetAll("org.freedesktop.GeoClue2.Location")
        updates.append((time.monotonic(), (float(values["Latitude"]), float(values["Longitude"]))))

    client_object.connect_to_signal("LocationUpdated", on_update, dbus_interface="org.freedesktop.GeoClue2.Client")
    dbus.Interface(client_object, "org.freedesktop.GeoClue2.Client").Start()
    context = GLib.MainContext.default()

    def pump(seconds):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            context.iteration(False) or time.sleep(0.001)

    current = []
    results = []
    for index, (truth, heard) in enumerate(truths):
        for path in current:
            wpa_mock.RemoveBSS(path)
        current = []
        sent = []
        for n, (mac, dbm) in enumerate(heard):
            current.append(wpa_mock.AddBSS(f"p{index}a{n}", mac, f"net{index}-{n}", int(round(dbm)), 2437))
            sent.append((mac, int(round(dbm))))
        pump(0.05)  # let GeoClue's BSS proxies settle as they would during a real scan's listening time
        before = len(updates)
        t0 = time.monotonic()
        wpa_mock.ScanDone()
        deadline = t0 + 6
        while len(updates) == before and time.monotonic() < deadline:
            context.iteration(True) if context.pending() else pump(0.005)
        if index == 0:
            continue
        if len(updates) == before:
            # GeoClue kept its location ("Ignoring less accurate new location"): the app still holds the last one.
            held = updates[-1][1] if updates else None
            results.append({"error_m": distance(held, truth) if held else float("inf"), "latency_s": None,
                            "heard": len(heard), "full_scan": False})
            continue
        at, fix = updates[before]
        results.append({"error_m": distance(fix, truth), "latency_s": at - t0, "heard": len(heard),
                        "full_scan": distance(fix, solve(aps, sent)) < 0.5})
    agent.kill()
    agent.wait()
    geoclue.kill()
    geoclue.wait()
    wpa.kill()
    wpa.wait()
    log.close()
    return results
