#!/usr/bin/python3
"""Wi-Fi positioning, end to end: fix error against the truth and time from scan to fix.

A seeded made-up city: access points placed at random in a 3 km square around Zürich (seed 14); N truth points
(seed 15), each hearing the access points within 120 m with a log-distance signal (-30 dBm at 1 m, exponent 2.5,
Gaussian noise sigma 4 dB, seeded), at most 30. The geolocate service is the tests' stand-in
(Tests/CoreLocationNetworkTests/Fixtures/geolocate/standin.py) given this map: its answer is the signal-weighted
centroid of the access points it is sent.

Ours: `locationctl track --source 'wifi:?fallback=none&min-interval=0&interval=3600'` (release build) reading
python-dbusmock's NetworkManager on a private bus; for each truth point the driver replaces the device's access
points (AddAccessPoint/RemoveAccessPoint: NetworkManager's AccessPointAdded/AccessPointRemoved), and times from the
last change to the fix line on locationctl's standard output whose position is the stand-in's answer for the full
scan. GeoClue (the peer, when --geoclue and geoclue-2.0 are installed): the same scans through a wpa_supplicant mock
(geoclue reads wpa_supplicant, not NetworkManager), timed from the ScanDone signal to LocationUpdated.

Usage: bench.py BIN_DIR [--points 20] [--out result.json] [--geoclue]
"""
import argparse
import json
import math
import os
import random
import select
import shutil
import subprocess
import sys
import tempfile
import time

import dbus

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "../../.."))
STANDIN = os.path.join(ROOT, "Tests/CoreLocationNetworkTests/Fixtures/geolocate/standin.py")
CENTER = (47.3769, 8.5417)
METRES_PER_DEG = 111_320.0


def offset(lat, lon, north, east):
    return lat + north / METRES_PER_DEG, lon + east / (METRES_PER_DEG * math.cos(math.radians(lat)))


def distance(a, b):
    """Haversine, metres (enough at these distances)."""
    r = 6_371_008.8
    p1, p2 = math.radians(a[0]), math.radians(b[0])
    dp, dl = p2 - p1, math.radians(b[1] - a[1])
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * r * math.asin(math.sqrt(h))


def make_city(points):
    rng = random.Random(14)
    aps = {}
    for i in range(1500):
        lat, lon = offset(*CENTER, rng.uniform(-1500, 1500), rng.uniform(-1500, 1500))
        mac = "02:%02x:%02x:%02x:%02x:%02x" % (14, (i >> 16) & 255, (i >> 8) & 255, i & 255, rng.randrange(256))
        aps[mac] = (lat, lon)
    rng = random.Random(15)
    truths = []
    attempts = 0
    while len(truths) < points:
        attempts += 1
        if attempts > 100_000:
            raise SystemExit(f"only {len(truths)} truth points 400 m apart fit in the city; ask for fewer --points")
        truth = offset(*CENTER, rng.uniform(-1300, 1300), rng.uniform(-1300, 1300))
        if any(distance(truth, t) < 400 for t, _ in truths):
            continue
        heard = []
        for mac, position in aps.items():
            d = distance(truth, position)
            if d <= 120:
                dbm = -30 - 25 * math.log10(max(d, 1)) + rng.gauss(0, 4)
                heard.append((mac, max(-89.0, min(-41.0, dbm))))  # GeoClue ignores <= -90 dBm
        heard.sort(key=lambda x: -x[1])
        heard = heard[:30]
        if len(heard) >= 3:
            truths.append((truth, heard))
    return aps, truths


def strength(dbm):
    """NetworkManager's percent for a dBm (nm_wifi_utils_level_to_quality: linear -100..-40)."""
    return max(0, min(100, int(round((dbm + 100) * 100 / 60))))


def ours_dbm(percent):
    """What our source sends for NetworkManager's percent (WiFiAccessPoint.dBm(fromStrength:))."""
    p = min(max(percent, 0), 100)
    return -100 + (p * 60 + 50) // 100


def solve(aps, scan):
    """The stand-in's answer for a scan [(mac, dBm)] (same formula as standin.py)."""
    known = [(aps[m], 10 ** (s / 20)) for m, s in scan if m in aps]
    total = sum(w for _, w in known)
    return (sum(p[0] * w for p, w in known) / total, sum(p[1] * w for p, w in known) / total)


class PrivateBus:
    def __init__(self, directory):
        config = os.path.join(directory, "bus.conf")
        with open(config, "w") as f:
            f.write(f"""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:path={directory}/bus</listen>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/>
<allow own="*"/></policy></busconfig>""")
        self.process = subprocess.Popen(["dbus-daemon", f"--config-file={config}", "--nofork", "--print-address=1"],
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.address = self.process.stdout.readline().strip()
        self.env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=self.address, DBUS_SESSION_BUS_ADDRESS=self.address)
        self.connection = dbus.bus.BusConnection(self.address)

    def wait_for(self, name, timeout=20):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.connection.name_has_owner(name):
                return
            time.sleep(0.05)
        raise SystemExit(f"{name} did not appear on the private bus")

    def close(self):
        self.process.kill()
        self.process.wait()


def start_standin(directory, aps):
    map_path = os.path.join(directory, "map.json")
    with open(map_path, "w") as f:
        json.dump({m: list(p) for m, p in aps.items()}, f)
    log = os.path.join(directory, "requests.jsonl")
    process = subprocess.Popen(["/usr/bin/python3", STANDIN, map_path, log], stdout=subprocess.PIPE, text=True)
    port = int(process.stdout.readline().split()[-1])
    return process, f"http://127.0.0.1:{port}/v1/geolocate", log


def run_ours(bin_dir, directory, bus, url, aps, truths):
    nm = subprocess.Popen(["/usr/bin/python3", "-m", "dbusmock", "--template", "networkmanager"], env=bus.env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    bus.wait_for("org.freedesktop.NetworkManager")
    manager = bus.connection.get_object("org.freedesktop.NetworkManager", "/org/freedesktop/NetworkManager")
    mock = dbus.Interface(manager, "org.freedesktop.DBus.Mock")
    device = mock.AddWiFiDevice("wlan0", "wlan0", dbus.UInt32(100))
    settings = os.path.join(directory, "network.json")
    with open(settings, "w") as f:
        json.dump({"wifiPositioning": True, "geolocateURL": url}, f)
    os.chmod(settings, 0o600)
    env = dict(os.environ, CORELOCATION_NETWORKMANAGER_BUS=bus.address, CORELOCATION_NETWORK_SETTINGS=settings,
               CORELOCATION_PROMPT="never", CORELOCATION_DATABASE=os.path.join(directory, "ctl.sqlite"),
               CORELOCATION_DAEMON="off", CORELOCATION_SOURCES_CONF="/dev/null")
    locationctl = os.path.join(bin_dir, "locationctl")
    subprocess.run([locationctl, "authorize", "locationctl", "when-in-use"], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    # The first scan before the tool starts (its first attempt reads it); then one scan per truth point.
    current = []
    results = []
    track = None
    held = None
    for index, (truth, heard) in enumerate(truths):
        for path in current:
            mock.RemoveAccessPoint(device, path)
        current = []
        sent = []
        for n, (mac, dbm) in enumerate(heard):
            percent = strength(dbm)
            current.append(mock.AddAccessPoint(device, f"p{index}a{n}", f"net{index}-{n}", mac, dbus.UInt32(2),
                                               dbus.UInt32(2437), dbus.UInt32(54000), dbus.Byte(percent),
                                               dbus.UInt32(0)))
            sent.append((mac, ours_dbm(percent)))
        t0 = time.monotonic()
        if track is None:
            track = subprocess.Popen(
                [locationctl, "track", "--source", "wifi:?fallback=none&min-interval=0&interval=3600", "--accuracy",
                 "100m", "--format", "json"], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            t0 = time.monotonic()
        expected = solve(aps, sent)
        fix, latency = wait_fix(track, expected, 10 if index else 60)
        if index == 0:
            held = fix
            continue  # the first includes the tool's start-up; not a scan-to-fix time
        if fix is None:
            print(f"ours: no fix for point {index}", file=sys.stderr)
            results.append({"error_m": distance(held, truth) if held else float("inf"), "latency_s": None,
                            "heard": len(heard)})
            continue
        held = fix
        results.append({"error_m": distance(fix, truth), "latency_s": latency, "heard": len(heard)})
    if track:
        track.kill()
        track.wait()
    nm.kill()
    nm.wait()
    return results


def wait_fix(track, expected, timeout):
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        ready, _, _ = select.select([track.stdout], [], [], 0.5)
        if not ready:
            continue
        line = track.stdout.readline()
        if not line:
            return None, None
        try:
            value = json.loads(line)
        except ValueError:
            continue
        fix = (value["latitude"], value["longitude"])
        if distance(fix, expected) < 0.5:
            return fix, time.monotonic() - start
    return None, None


def summary(rows):
    if not rows:
        return None
    errors = sorted(r["error_m"] for r in rows)
    latencies = sorted(r["latency_s"] for r in rows if r["latency_s"] is not None)
    def pct(v, q):
        return v[min(len(v) - 1, int(q * len(v)))] if v else None
    row = {"scans": len(rows), "answered": len(latencies), "error_p50_m": pct(errors, 0.5),
           "error_p95_m": pct(errors, 0.95), "latency_p50_s": pct(latencies, 0.5), "latency_p95_s": pct(latencies, 0.95)}
    if any("full_scan" in r for r in rows):
        row["answers_from_the_full_scan"] = sum(1 for r in rows if r.get("full_scan"))
    return row


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bin_dir")
    parser.add_argument("--points", type=int, default=20)
    parser.add_argument("--out")
    parser.add_argument("--geoclue", action="store_true")
    parser.add_argument("--no-ours", action="store_true", help="only the peer (to check its set-up)")
    args = parser.parse_args()
    aps, truths = make_city(args.points + 1)
    directory = tempfile.mkdtemp(prefix="wifi-bench-")
    bus = PrivateBus(directory)
    standin, url, log = start_standin(directory, aps)
    try:
        result = {}
        if not args.no_ours:
            result["ours"] = summary(run_ours(args.bin_dir, directory, bus, url, aps, truths))
        if args.geoclue:
            import geoclue_peer
            if geoclue_peer.available():
                result["geoclue"] = summary(geoclue_peer.run(directory, bus, url, aps, truths, distance, solve))
            else:
                result["geoclue"] = "not installed (apt-get install geoclue-2.0)"
    finally:
        standin.kill()
        bus.close()
        if not os.environ.get("KEEP"):
            shutil.rmtree(directory, ignore_errors=True)
    print(json.dumps(result, indent=2))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
