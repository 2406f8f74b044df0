#!/usr/bin/env python3
"""Relaunch benchmark driver (see README.md).

locationd plays a GPX track that crosses a 200 m region every few seconds (--region-dwell 0.6, the
dwell rule, so crossings come quickly), with --launcher exec. The example app (CoreLocationAppProbe
background) monitors the region and appends `launch T PID REASON` and `enter|exit T ID` to its log;
T is the monotonic clock (seconds since boot) shared by every process. After each event reaches
the delegate the app is SIGKILLed, so the next crossing finds no process: locationd stores it, logs
`Pending event … uptime=T` and launches the app. Per event: crossing → app started (its `launch`
line), crossing → event in the delegate. At the end: events in the log vs crossings the daemon
logged (lost), and repeated lines (duplicated).

--visits: the app also starts visits (`--visits`), the daemon makes a visit of a stay of 2 s
(`--visit-stay 2,2`) and watches without the quiet breaks it takes while the user is settled in a
visit (`--monitoring-probe-interval 0`), and the track dwells `--dwell` points a side (default 6),
so every stay in the region is an entry, visits and an exit, each a pending event the app is killed
after. Lost and duplicated are then counted against the daemon's own list of stored events, in
order."""
import argparse, json, os, re, signal, statistics, subprocess, sys, tempfile, threading, time

CENTER = (48.8584, 2.2945)
NORTH = CENTER[0] + 0.0054


def track(path, cycles, outside=10, dwell=3):
    points = [(NORTH, CENTER[1])] * outside
    for _ in range(cycles):
        points += [CENTER] * dwell + [(NORTH, CENTER[1])] * dwell
    with open(path, "w") as out:
        out.write('<?xml version="1.0"?><gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>\n')
        for i, (lat, lon) in enumerate(points):
            t = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1_700_000_000 + i))
            out.write(f'<trkpt lat="{lat}" lon="{lon}"><time>{t}</time></trkpt>\n')
        out.write("</trkseg></trk></gpx>\n")


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))] if values else float("nan")


def kill_probe(pid, log):
    """SIGKILL pid only if it is still the probe writing `log`: by the end of a run its pid may be anything's."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            if log.encode() in f.read():
                os.kill(pid, signal.SIGKILL)
    except (FileNotFoundError, ProcessLookupError):
        pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bin")
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--speed", type=float, default=1.0, help="track playback speed")
    parser.add_argument("--out")
    parser.add_argument("--visits", action="store_true", help="visits too (see the docstring)")
    parser.add_argument("--dwell", type=int, default=None, help="track points a side (default 3, 6 with --visits)")
    args = parser.parse_args()
    dwell = args.dwell or (6 if args.visits else 3)
    work = tempfile.mkdtemp(prefix="relaunch-bench-")
    sock, db, log, gpx = (os.path.join(work, n) for n in ("l.sock", "d.sqlite", "app.log", "track.gpx"))
    per_cycle = 3 if args.visits else 2
    cycles = (args.events + per_cycle - 1) // per_cycle
    track(gpx, cycles, dwell=dwell)
    plist = os.path.join(work, "Info.plist")
    with open(plist, "w") as out:
        out.write('<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict>'
                  "<key>CFBundleIdentifier</key><string>org.example.relaunch-bench</string>"
                  "<key>NSLocationWhenInUseUsageDescription</key><string>Benchmark.</string></dict></plist>")
    env = dict(os.environ, CORELOCATION_DAEMON_SOCKET=sock, CORELOCATION_PROMPT="never", CORELOCATION_DAEMON="require",
               CORELOCATION_DATABASE=os.path.join(work, "app.sqlite"), XDG_CONFIG_HOME=os.path.join(work, "config"),
               CORELOCATION_INFO_PLIST=plist)
    env.pop("CORELOCATION_SIMULATE", None)
    daemon_log = open(os.path.join(work, "locationd.log"), "w")
    daemon = subprocess.Popen(
        [os.path.join(args.bin, "locationd"), "--socket", sock, "--database", db, "--config", "/dev/null",
         "--simulate", gpx, "--simulate-speed", str(args.speed), "--region-dwell", "0.6", "--launcher", "exec",
         "--relaunch-pickup", "2", "--relaunch-limit", "100000", "--log-level", "info"]
        + (["--visit-stay", "2,2", "--monitoring-probe-interval", "0"] if args.visits else []),
        env=env, stdout=subprocess.DEVNULL, stderr=daemon_log)
    for _ in range(200):
        if os.path.exists(sock):
            break
        time.sleep(0.05)
    app = [os.path.join(args.bin, "CoreLocationAppProbe"), "background", str(CENTER[0]), str(CENTER[1]), "200",
           "home", "--log", log, "--seconds", "600"] + (["--visits"] if args.visits else [])
    first = subprocess.Popen(app, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def lines():
        try:
            with open(log) as f:
                return f.read().splitlines()
        except FileNotFoundError:
            return []

    killed = set()
    deadline = time.time() + cycles * (2 * dwell) / args.speed + 120
    kinds_of = ("enter ", "exit ", "visit ") if args.visits else ("enter ", "exit ")
    seen_events = 0
    while time.time() < deadline:
        current = lines()
        events = [l for l in current if l.startswith(kinds_of)]
        if len(events) >= per_cycle * cycles:
            break
        if len(events) > seen_events:
            seen_events = len(events)
            # The event reached the delegate: kill the process that has it.
            launches = [l.split() for l in current if l.startswith("launch ")]
            pid = int(launches[-1][2])
            if pid not in killed:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                killed.add(pid)
        time.sleep(0.005)
    time.sleep(1)
    for l in lines():
        if l.startswith("launch "):
            kill_probe(int(l.split()[2]), log)
    daemon.send_signal(signal.SIGTERM)
    daemon.wait(timeout=10)
    first.wait(timeout=10)
    daemon_log.close()
    crossings, stored = {}, {}
    with open(os.path.join(work, "locationd.log")) as f:
        for line in f:
            if "Pending event" in line:
                seq = re.search(r"sequence=(\d+)", line)
                up = re.search(r"uptime=([0-9.]+)", line)
                kind = re.search(r"kind=(\S+)", line)
                if seq and up:
                    crossings[int(seq.group(1))] = float(up.group(1))
                if seq and kind:
                    stored[int(seq.group(1))] = kind.group(1)
    # Walk the app's log: after each launch by locationd, the first event is the crossing that
    # launched it (the crossing logged with the next sequence number).
    events = [l.split() for l in current if l.startswith(kinds_of)]
    to_running, to_delegate = [], []
    sequence = 0
    last_launch = None
    stored_order = [stored[k] for k in sorted(stored)]
    for l in current:
        parts = l.split()
        if parts[0] == "launch":
            last_launch = (float(parts[1]), parts[3])
        elif parts[0] in ("enter", "exit", "visit"):
            # With visits, one that came live (the app connected) is not stored: it takes no number.
            if args.visits and (sequence >= len(stored_order) or parts[0] != stored_order[sequence]):
                continue
            sequence += 1
            crossed = crossings.get(sequence)
            if crossed is not None and last_launch and last_launch[1] == "location" and last_launch[0] >= crossed:
                to_running.append(last_launch[0] - crossed)
                to_delegate.append(float(parts[1]) - crossed)
                last_launch = None
    kinds = [e[0] for e in events]
    if args.visits:
        # The daemon's list is the oracle for what was stored: it must be delivered in that order (a
        # subsequence of what the delegate saw: a visit that comes while the app is connected goes to
        # it live and is not stored). Duplicated: a visit (its place, arrival and departure) seen twice, or an
        # entry or exit right after one of its own kind.
        expected = [stored[k] for k in sorted(stored)]
        matched = 0
        for kind in kinds:
            if matched < len(expected) and kind == expected[matched]:
                matched += 1
        visits = [tuple(e[2:6]) for e in events if e[0] == "visit"]
        crossings_seen = [e[0] for e in events if e[0] != "visit"]
        duplicated = (len(visits) - len(set(visits))) + sum(
            1 for a, b in zip(crossings_seen, crossings_seen[1:]) if a == b)
        lost = len(expected) - matched
    else:
        expected = ["enter", "exit"] * cycles
        duplicated = sum(1 for a, b in zip(kinds, kinds[1:]) if a == b)
        lost = max(0, len(crossings) - len(kinds))
    result = {
        "events_expected": len(expected), "events_crossed": len(crossings), "events_delivered": len(kinds),
        "by_kind": {k: kinds.count(k) for k in sorted(set(kinds))},
        "lost": lost, "duplicated_or_out_of_order": duplicated,
        "in_order": lost == 0 if args.visits else kinds == expected[: len(kinds)], "kills": len(killed), "measured_relaunches": len(to_running),
        "crossing_to_running_p50_ms": round(pct(to_running, 50) * 1000, 1),
        "crossing_to_running_p95_ms": round(pct(to_running, 95) * 1000, 1),
        "crossing_to_delegate_p50_ms": round(pct(to_delegate, 50) * 1000, 1),
        "crossing_to_delegate_p95_ms": round(pct(to_delegate, 95) * 1000, 1),
        "work": work,
    }
    print(json.dumps(result, indent=2))
    if args.out:
        with open(args.out, "w") as out:
            json.dump(result, out, indent=2)


if __name__ == "__main__":
    main()
