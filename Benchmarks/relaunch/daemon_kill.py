#!/usr/bin/env python3
"""Daemon-kill run (issue 37, "Faults still unmeasured"; see README.md).

The app-kill run (bench.py) with locationd itself SIGKILLed at random moments (seeded) and started
again as systemd's `Restart=on-failure` would (`RestartSec`, 1 s in packaging/systemd, by default).

- Position: an NMEA feed this driver serves on TCP (RMC + GGA, 5 a second), read by locationd
  (`--source tcp://…`), so the position carries on across the daemon's restarts (a `--simulate` GPX
  would start again from its first point). The driver moves the receiver in or out of a 200 m region,
  then waits until the app's delegate saw the crossing (or `--event-timeout`) before the next one.
- App: `CoreLocationAppProbe background` monitors the region and is SIGKILLed as soon as each event
  reached its delegate, as in bench.py; locationd relaunches it (`--launcher exec`).
- Daemon: a seeded thread SIGKILLs it every U(`--kill-min`, `--kill-max`) seconds and starts it again
  `--restart-sec` later. `--socket-activation`: as the units run it — the listening socket is made once
  and held across restarts (systemd's socket unit; here the driver), and each start is
  `systemd-socket-activate` with that socket passed through, which execs locationd at the first
  connection; a client that connects while the daemon is down waits in the backlog.
- Reconnect: a second app, already running (`CoreLocationAppProbe updates`, its own bundle and stored
  decision), prints every fix; per kill, the time from the kill (and from the restart) to the first
  fix it printed after the kill.

Lost: crossings the driver made that never reached the delegate; the daemon's stored events
(`Pending event … sequence=`) not delivered are reported too. Duplicated: a kind twice in a row.

Authorization: both apps get a stored decision (`locationctl authorize … when-in-use`), as in
Tests/LocationdTests/BackgroundDaemonKillTests. `--headless`: no stored decision; the daemon's default
policy (`CORELOCATION_DEFAULT_POLICY=when-in-use`) answers, a session-only grant a restart forgets
(the README's locationd section says what that costs)."""
import argparse, json, os, random, re, signal, socket, subprocess, threading, time

from bench import kill_probe, pct  # the app-kill run's percentile, so both runs' figures mean the same

CENTER = (52.52, 13.405)
NORTH = 52.5254  # 600 m north: outside the 200 m region


def nmea(lat, lon):
    def angle(value, digits):
        degrees = int(value)
        return f"{degrees:0{digits}d}{(value - degrees) * 60:07.4f}"
    t = time.time()
    g = time.gmtime(t)
    hms = time.strftime("%H%M%S", g) + f".{int((t % 1) * 100):02d}"
    day = time.strftime("%d%m%y", g)
    la, lo = angle(lat, 2), angle(lon, 3)
    out = []
    for body in (f"GPRMC,{hms},A,{la},N,{lo},E,0.0,0.0,{day},,,A",
                 f"GPGGA,{hms},{la},N,{lo},E,1,08,0.9,34.0,M,40.0,M,,"):
        checksum = 0
        for b in body.encode():
            checksum ^= b
        out.append(f"${body}*{checksum:02X}\r\n")
    return "".join(out).encode()


class Feed:
    """A receiver on TCP: every connected reader gets an epoch every `interval` seconds."""

    def __init__(self, interval=0.2):
        self.inside = False
        self.clients = []
        self.lock = threading.Lock()
        self.server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(16)
        self.port = self.server.getsockname()[1]
        self.interval = interval
        threading.Thread(target=self.accept, daemon=True).start()
        threading.Thread(target=self.pump, daemon=True).start()

    def accept(self):
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self.lock:
                self.clients.append(client)

    def pump(self):
        while True:
            data = nmea(CENTER[0] if self.inside else NORTH, CENTER[1])
            with self.lock:
                for client in list(self.clients):
                    try:
                        client.sendall(data)
                    except OSError:
                        self.clients.remove(client)
                        client.close()
            time.sleep(self.interval)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bin")
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=37)
    parser.add_argument("--kill-min", type=float, default=1.0, help="seconds between daemon kills, at least")
    parser.add_argument("--kill-max", type=float, default=6.0, help="seconds between daemon kills, at most")
    parser.add_argument("--restart-sec", type=float, default=1.0, help="systemd's RestartSec (the units: 1)")
    parser.add_argument("--event-timeout", type=float, default=30.0)
    parser.add_argument("--headless", action="store_true", help="no stored decision: the default policy answers")
    parser.add_argument("--socket-activation", action="store_true",
                        help="as the units: one listening socket held across restarts (systemd's, here the driver's), "
                             "each start through systemd-socket-activate, which starts locationd at the first "
                             "connection and passes it the socket")
    parser.add_argument("--out")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    work = os.path.realpath(__import__("tempfile").mkdtemp(prefix="daemon-kill-bench-"))
    sock, db = os.path.join(work, "l.sock"), os.path.join(work, "d.sqlite")
    log, updates_log = os.path.join(work, "app.log"), os.path.join(work, "updates.log")

    def plist(name, bundle):
        path = os.path.join(work, name)
        with open(path, "w") as out:
            out.write('<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict>'
                      f"<key>CFBundleIdentifier</key><string>{bundle}</string>"
                      "<key>NSLocationWhenInUseUsageDescription</key><string>Benchmark.</string></dict></plist>")
        return path

    bg_bundle, up_bundle = "org.example.daemon-kill-bench", "org.example.reconnect-bench"
    env = dict(os.environ, CORELOCATION_DAEMON_SOCKET=sock, CORELOCATION_PROMPT="never", CORELOCATION_DAEMON="require",
               CORELOCATION_DATABASE=os.path.join(work, "app.sqlite"), XDG_CONFIG_HOME=os.path.join(work, "config"))
    env.pop("CORELOCATION_SIMULATE", None)
    bg_env = dict(env, CORELOCATION_INFO_PLIST=plist("bg.plist", bg_bundle))
    up_env = dict(env, CORELOCATION_INFO_PLIST=plist("up.plist", up_bundle))
    daemon_env = dict(bg_env)
    if args.headless:
        daemon_env["CORELOCATION_DEFAULT_POLICY"] = "when-in-use"
    feed = Feed()
    daemon_log = open(os.path.join(work, "locationd.log"), "w")
    command = [os.path.join(args.bin, "locationd"), "--socket", sock, "--database", db, "--config", "/dev/null",
               "--source", f"tcp://127.0.0.1:{feed.port}", "--region-dwell", "0.6", "--launcher", "exec",
               "--relaunch-pickup", "2", "--relaunch-limit", "100000", "--log-level", "info"]

    def answers():
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(sock)
            return True
        except OSError:
            return False
        finally:
            s.close()

    listener = None
    if args.socket_activation:
        # systemd's socket unit: bound once, open across the service's restarts, so a client's connect() while
        # the daemon is down waits in the backlog instead of failing.
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(sock)
        os.chmod(sock, 0o600)
        listener.listen(256)

    def start_daemon():
        daemon_log.write(f"=== start {time.monotonic():.6f}\n")
        daemon_log.flush()
        if listener is not None:
            # The socket as fd 3 with LISTEN_FDS/LISTEN_PID for systemd-socket-activate, which passes it through
            # ("file descriptors from sd_listen_fds() will be passed through"), waits for a connection on it and
            # execs locationd (same pid: the one killed). The driver's own copy stays open, as systemd's does.
            fd = listener.fileno()
            shell = f'exec 3<&{fd} {fd}<&-; LISTEN_FDS=1 LISTEN_PID=$$ exec systemd-socket-activate "$@"'
            return subprocess.Popen(["sh", "-c", shell, "sh"] + command, env=daemon_env, pass_fds=[fd],
                                    stdout=subprocess.DEVNULL, stderr=daemon_log)
        process = subprocess.Popen(command, env=daemon_env, stdout=subprocess.DEVNULL, stderr=daemon_log)
        for _ in range(400):
            if answers():
                break
            time.sleep(0.025)
        return process

    daemon = start_daemon()
    if not args.headless:
        for bundle in (bg_bundle, up_bundle):
            subprocess.run([os.path.join(args.bin, "locationctl"), "authorize", bundle, "when-in-use"], env=env,
                           check=True, stdout=subprocess.DEVNULL)
    probe = os.path.join(args.bin, "CoreLocationAppProbe")
    seconds = str(int(args.events * 10 + 600))
    first = subprocess.Popen([probe, "background", str(CENTER[0]), str(CENTER[1]), "200", "home", "--log", log,
                              "--seconds", seconds], env=bg_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    updates_out = open(updates_log, "w")
    updates = subprocess.Popen([probe, "updates", "--seconds", seconds], env=up_env, stdout=updates_out,
                               stderr=subprocess.DEVNULL)

    def lines(path):
        try:
            with open(path) as f:
                return f.read().splitlines()
        except FileNotFoundError:
            return []

    def events():
        return [l.split() for l in lines(log) if l.startswith(("enter ", "exit "))]

    # Outside and determined before the first crossing.
    deadline = time.time() + 30
    while time.time() < deadline and not any(l.startswith("location ") for l in lines(updates_log)):
        time.sleep(0.05)
    time.sleep(2)

    kills = []  # (monotonic time of the kill, of the restart)
    stop = threading.Event()
    holder = {"daemon": daemon}

    def killer():
        while not stop.wait(rng.uniform(args.kill_min, args.kill_max)):
            process = holder["daemon"]
            killed_at = time.monotonic()
            process.send_signal(signal.SIGKILL)
            process.wait()
            if stop.wait(args.restart_sec):
                return
            restarted_at = time.monotonic()
            holder["daemon"] = start_daemon()
            kills.append((killed_at, restarted_at))

    threading.Thread(target=killer, daemon=True).start()
    expected, timeouts, killed_apps = [], 0, set()
    started = time.time()
    for index in range(args.events):
        feed.inside = not feed.inside
        expected.append("enter" if feed.inside else "exit")
        wait_until = time.time() + args.event_timeout
        while time.time() < wait_until:
            seen = events()
            if len(seen) >= len(expected):
                break
            time.sleep(0.01)
        else:
            timeouts += 1
        # The event reached the delegate: kill the process that has it, as in the app-kill run.
        # A process is its launch line (pid and time): pids are reused (pid_max 32768 here).
        launches = [tuple(l.split()[1:3]) for l in lines(log) if l.startswith("launch ")]
        if launches and launches[-1] not in killed_apps:
            try:
                os.kill(int(launches[-1][1]), signal.SIGKILL)  # just logged its event: still the probe
            except ProcessLookupError:
                pass
            killed_apps.add(launches[-1])
        if (index + 1) % 50 == 0:
            print(f"{index + 1} crossings, {len(events())} delivered, {len(kills)} daemon kills, "
                  f"{time.time() - started:.0f} s", flush=True)
    stop.set()
    time.sleep(5)  # settled: anything late or repeated comes now
    seen = [e[0] for e in events()]

    for l in lines(log):
        if l.startswith("launch "):
            kill_probe(int(l.split()[2]), log)
    for process in (updates, first):
        process.kill()
    holder["daemon"].send_signal(signal.SIGTERM)
    try:
        holder["daemon"].wait(timeout=10)
    except subprocess.TimeoutExpired:
        holder["daemon"].kill()
    daemon_log.close()
    updates_out.close()

    stored = []
    with open(os.path.join(work, "locationd.log")) as f:
        for line in f:
            if "Pending event" in line:
                seq, kind = re.search(r"sequence=(\d+)", line), re.search(r"kind=(\S+)", line)
                if seq and kind:
                    stored.append((int(seq.group(1)), kind.group(1)))
    fixes = sorted(float(l.split()[1]) for l in lines(updates_log) if l.startswith("location "))
    from_kill, from_restart, never = [], [], 0
    for killed_at, restarted_at in kills:
        after = next((t for t in fixes if t > restarted_at), None)
        if after is None:
            never += 1
            continue
        from_kill.append(after - killed_at)
        from_restart.append(after - restarted_at)
    # In order: the delegate's events are the crossings' kinds, once each.
    matched = 0
    for kind in seen:
        if matched < len(expected) and kind == expected[matched]:
            matched += 1
    result = {
        "crossings": len(expected), "delivered": len(seen), "lost": len(expected) - matched,
        "duplicated": sum(1 for a, b in zip(seen, seen[1:]) if a == b), "extra": max(0, len(seen) - matched),
        "in_order": seen == expected, "timeouts": timeouts,
        "stored_by_daemon": len(stored), "stored_sequences_repeated": len(stored) - len({s for s, _ in stored}),
        "daemon_kills": len(kills), "app_kills": len(killed_apps), "headless": args.headless, "seed": args.seed,
        "socket_activation": args.socket_activation,
        "restart_sec": args.restart_sec,
        "reconnect_from_kill_p50_ms": round(pct(from_kill, 50) * 1000, 1),
        "reconnect_from_kill_p99_ms": round(pct(from_kill, 99) * 1000, 1),
        "reconnect_from_restart_p50_ms": round(pct(from_restart, 50) * 1000, 1),
        "reconnect_from_restart_p99_ms": round(pct(from_restart, 99) * 1000, 1),
        "reconnect_from_restart_max_ms": round(max(from_restart, default=float("nan")) * 1000, 1),
        "kills_without_a_fix_after": never, "minutes": round((time.time() - started) / 60, 1), "work": work,
    }
    print(json.dumps(result, indent=2))
    if args.out:
        with open(args.out, "w") as out:
            json.dump(result, out, indent=2)


if __name__ == "__main__":
    main()
