#!/usr/bin/env python3
"""Writes seeded synthetic tracks with stays, and their stays labelled from the generator's truth, for
the reporter benchmark's second table (issue 12: stillness measured on dozens of stays, not 8).
Standard library only; the same seed writes the same files.

    python3 synth.py OUT_DIR [--seed N] [--tracks N]   # OUT_DIR/tracks/*.gpx, OUT_DIR/labels/*.json

Each track alternates moving legs and stays, starting and ending with a leg:
- legs: walking (1.1–1.6 m/s) or driving (8–17 m/s), 4–15 min, the heading drifting and turning;
- stays: 10–60 min, of one of three kinds — *still* (the user stands), *multipath* (stands, but the
  receiver wanders 20–40 m away for 20–60 s, one to three times), *dawdle* (a slow walk, 0.1–0.4 m/s,
  that never leaves 60 m of the place: a market, a garden);
- noise: GNSS error as a first-order Gauss–Markov process per axis (correlation time 30–60 s; GNSS
  errors are correlated over about a minute, so white noise would be too kind to stillness rules and
  too hard on them at once), with a radial RMS σ of 5–15 m drawn per stay (2–6 m while moving, where
  the sky is open on the road); the GPX carries no accuracy, so the replay states 5 m for every fix
  (RoutePlayer), as a receiver that underestimates its error would;
- receiver gaps: a quarter of the stays lose the receiver from 0.5–2 min after the arrival for
  5–15 min (the recording's real gaps, Benchmarks/visits); one leg in ten loses it for 1–4 min;
- fixes every 2 or 5 s per track (the real tracks log at 2–15 s).

Labels (the visits benchmark's format): arrival = the first fix at or after the true arrival,
departure = the last fix before the true departure; a fix inside the stay is never labelled moving.
"""
import datetime as dt
import json
import math
import os
import random
import sys

R = 6371008.8
ORIGIN = (46.05, 14.50)
START = dt.datetime(2026, 6, 1, 8, 0, tzinfo=dt.timezone.utc)


class Noise:
    """Gauss–Markov per axis: x' = a x + sqrt(1 − a²) s w, stationary RMS s per axis."""

    def __init__(self, rng):
        self.rng = rng
        self.x = self.y = 0.0
        self.set(3.0, 60.0)

    def set(self, sigma, tau):
        self.s = sigma / math.sqrt(2)
        self.tau = tau

    def step(self, dt_):
        a = math.exp(-dt_ / self.tau)
        b = math.sqrt(1 - a * a) * self.s
        self.x = a * self.x + b * self.rng.gauss(0, 1)
        self.y = a * self.y + b * self.rng.gauss(0, 1)
        return self.x, self.y


def track(rng, index):
    step = rng.choice([2.0, 5.0])
    noise = Noise(rng)
    t, x, y, heading = 0.0, 0.0, 0.0, rng.uniform(0, 2 * math.pi)
    fixes, stays = [], []

    def emit(px, py, off=False):
        nx, ny = noise.step(step)
        if not off:
            fixes.append((t, px + nx, py + ny))

    def leg():
        nonlocal t, x, y, heading
        drive = rng.random() < 0.5
        speed = rng.uniform(8, 17) if drive else rng.uniform(1.1, 1.6)
        duration = rng.uniform(240, 900)
        noise.set(rng.uniform(2, 6), rng.uniform(30, 60))
        gap = None
        if rng.random() < 0.1:
            start = rng.uniform(30, duration - 300)
            gap = (start, start + rng.uniform(60, 240))
        turn = rng.uniform(-0.01, 0.01)
        begin = t
        while t - begin < duration:
            t += step
            if rng.random() < step / 120:
                heading += rng.uniform(-1.5, 1.5)
            heading += turn * step
            x += speed * step * math.cos(heading)
            y += speed * step * math.sin(heading)
            emit(x, y, off=gap is not None and gap[0] <= t - begin < gap[1])

    def stay():
        nonlocal t, x, y
        kind = rng.choice(["still", "still", "multipath", "dawdle"])
        duration = rng.uniform(600, 3600)
        noise.set(rng.uniform(5, 15), rng.uniform(30, 60))
        gap = None
        if rng.random() < 0.25:
            start = rng.uniform(30, 120)
            gap = (start, start + rng.uniform(300, 900))
        excursions = []
        if kind == "multipath":
            for _ in range(rng.randint(1, 3)):
                start = rng.uniform(60, duration - 120)
                excursions.append((start, start + rng.uniform(20, 60), rng.uniform(20, 40), rng.uniform(0, 2 * math.pi)))
        cx, cy = x, y
        px, py = 0.0, 0.0
        walk_heading, walk_speed = rng.uniform(0, 2 * math.pi), rng.uniform(0.1, 0.4)
        arrival, begin, last = None, t, None
        while True:
            t += step
            if t - begin >= duration:
                break
            if kind == "dawdle":
                walk_heading += rng.gauss(0, 0.3)
                nx, ny = px + walk_speed * step * math.cos(walk_heading), py + walk_speed * step * math.sin(walk_heading)
                if math.hypot(nx, ny) > 55:
                    walk_heading += math.pi
                else:
                    px, py = nx, ny
            ex, ey = 0.0, 0.0
            for a, b, r, h in excursions:
                if a <= t - begin < b:
                    ex, ey = r * math.cos(h), r * math.sin(h)
            off = gap is not None and gap[0] <= t - begin < gap[1]
            emit(cx + px + ex, cy + py + ey, off=off)
            if not off:
                if arrival is None:
                    arrival = t
                last = t
        x, y = cx + px, cy + py
        if arrival is not None and last is not None:
            stays.append({"arrival": arrival, "departure": last, "kind": kind, "gap": gap is not None,
                          "x": cx, "y": cy, "sigma": round(noise.s * math.sqrt(2), 1)})

    leg()
    for _ in range(rng.randint(2, 4)):
        stay()
        leg()
    return step, fixes, stays


def to_degrees(x, y):
    lat = ORIGIN[0] + y / R * 180 / math.pi
    lon = ORIGIN[1] + x / (R * math.cos(ORIGIN[0] * math.pi / 180)) * 180 / math.pi
    return lat, lon


def iso(seconds):
    return (START + dt.timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S") + "Z"


def write(out, name, step, fixes, stays):
    os.makedirs(os.path.join(out, "tracks"), exist_ok=True)
    os.makedirs(os.path.join(out, "labels"), exist_ok=True)
    with open(os.path.join(out, "tracks", name + ".gpx"), "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n'
                '<gpx xmlns="http://www.topografix.com/GPX/1/1" version="1.1" creator="Benchmarks/reporter/synth.py">\n'
                f'  <trk><name>{name}</name><trkseg>\n')
        for t, x, y in fixes:
            lat, lon = to_degrees(x, y)
            f.write(f'    <trkpt lat="{lat:.7f}" lon="{lon:.7f}"><time>{iso(t)}</time></trkpt>\n')
        f.write("  </trkseg></trk>\n</gpx>\n")
    labels = {
        "track": name + ".gpx",
        "labelled": "from the generator's truth (Benchmarks/reporter/synth.py)",
        "fix_interval_s": step,
        "stays": [
            {"arrival": iso(s["arrival"]), "departure": iso(s["departure"]), "kind": s["kind"],
             "receiver_gap": s["gap"], "noise_rms_m": s["sigma"],
             "latitude": round(to_degrees(s["x"], s["y"])[0], 6), "longitude": round(to_degrees(s["x"], s["y"])[1], 6)}
            for s in stays
        ],
    }
    with open(os.path.join(out, "labels", name + ".json"), "w") as f:
        json.dump(labels, f, indent=2)
        f.write("\n")


def names(count):
    return [f"synthetic-{i:02d}" for i in range(count)]


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    out, seed, count = args[0], 12, 12
    for flag, value in zip(args[1::2], args[2::2]):
        if flag == "--seed":
            seed = int(value)
        elif flag == "--tracks":
            count = int(value)
        else:
            sys.exit(f"unknown option {flag}")
    rng = random.Random(seed)
    for index, name in enumerate(names(count)):
        step, fixes, stays = track(random.Random(rng.getrandbits(64)), index)
        write(out, name, step, fixes, stays)


if __name__ == "__main__":
    main()
