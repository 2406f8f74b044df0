#!/usr/bin/env python3
"""Noisy 5-second logger variants of the four real GPX tracks of Benchmarks/visits, with 200 m
regions where the labelled stays last 15 minutes or more (decision 0019).

The tracks are REAL (Benchmarks/visits/tracks, from gpxo and gpxpy); the noise is SYNTHETIC, from
the seeded model below. No real 5-second logger recording with indoor gaps was found in the Debian
or PyPI packages this project may use (gpxo, gpxpy: 1-15 s tracks, no indoor stretches; trackintel
ships no data), so this is the closest honest substitute.

    python3 Benchmarks/regions/noisy/make_tracks.py     # writes the fixtures (deterministic)

Output: Benchmarks/regions/noisy/tracks/<track>-s<seed>.csv with one line per fix,
`t,lat,lon,acc,truth_lat,truth_lon` (t seconds from the track's first point; acc the stated
horizontal accuracy, metres), and regions.json (per track: id, lat, lon, radius).

Noise model (per seed, random.Random(seed); standard library only):
- Truth: the real track resampled every 5 s by linear interpolation. A gap of the original longer
  than 60 s is bridged only when both ends lie within 100 m (the walker stood still: korita's
  logger recorded almost nothing while still); other gaps (cerknicko's receiver switched off while
  driving) stay gaps.
- Outdoors: first-order Gauss-Markov error per axis (east, north), sigma 12 m, correlation time
  60 s (radial rms ~17 m; a logger's usual wander). Stated accuracy: HDOP-like, 6-12 m.
- Indoors: from 2 min after a labelled stay begins until 1 min before it ends (all stays of 10 min
  or more), sigma 35 m per axis, correlation time 120 s (radial rms ~50 m, multipath), stated
  accuracy 20-50 m (it underestimates the error, as loggers' DOP-based values do indoors); no fix
  at all during gap episodes starting at a rate of one per 6 min, 1-8 min long.
- After every gap of 30 s or more: a reacquisition error of N(0, 60 m) per axis that decays with a
  20 s time constant.
"""
import json
import math
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "Benchmarks", "visits"))
import gpxtrack  # noqa: E402

# around-visnjan-with-car has no stay, so no region: left out.
TRACKS = ["ExampleTrack", "korita-zbevnica-timed", "cerknicko-jezero"]
SEEDS = [1501, 1502, 1503]
STEP = 5.0
MIN_STAY = 15 * 60
RADIUS = 200.0
OUTDOOR_SIGMA, OUTDOOR_TAU, OUTDOOR_ACCURACY = 15.0, 60.0, (6.0, 12.0)
INDOOR_SIGMA, INDOOR_TAU, INDOOR_ACCURACY = 100.0, 120.0, (15.0, 50.0)
REACQUIRE_SIGMA, REACQUIRE_TAU = 100.0, 30.0
GAP_RATE, GAP_LENGTH = 1 / 360.0, (60.0, 480.0)
OUT = os.path.join(HERE, "tracks")


def stamp(text):
    return gpxtrack.parse_time(text).timestamp()


def local_metres(lat):
    """Metres per degree of latitude and longitude at `lat` (spherical, enough for noise)."""
    return 111_195.0, 111_195.0 * math.cos(math.radians(lat))


def resample(points):
    """[(t, lat, lon)] every STEP seconds, with gaps kept where the receiver was off."""
    t0 = points[0][0]
    raw = [(p[0] - t0, p[1], p[2]) for p in points]
    out = []
    for (ta, la, oa), (tb, lb, ob) in zip(raw, raw[1:]):
        if tb <= ta:
            continue
        my, mx = local_metres(la)
        apart = math.hypot((lb - la) * my, (ob - oa) * mx)
        if tb - ta > 60 and apart > 100:
            out.append((ta, la, oa))
            continue
        t = math.ceil(ta / STEP) * STEP
        while t < tb:
            f = (t - ta) / (tb - ta)
            out.append((t, la + f * (lb - la), oa + f * (ob - oa)))
            t += STEP
    out.append(raw[-1])
    return t0, out


class GaussMarkov:
    def __init__(self, rng):
        self.rng, self.e, self.n = rng, 0.0, 0.0

    def step(self, dt, sigma, tau):
        a = math.exp(-dt / tau)
        s = sigma * math.sqrt(1 - a * a)
        self.e = a * self.e + self.rng.gauss(0, s)
        self.n = a * self.n + self.rng.gauss(0, s)
        return self.e, self.n


def main():
    os.makedirs(OUT, exist_ok=True)
    regions = {}
    for name in TRACKS:
        points = [(p[0].timestamp(), p[1], p[2]) for p in gpxtrack.timed_points(
            os.path.join(ROOT, "Benchmarks", "visits", "tracks", name + ".gpx"))]
        t0, truth = resample(points)
        labels = json.load(open(os.path.join(ROOT, "Benchmarks", "visits", "labels", name + ".json")))
        stays = [(stamp(s["arrival"]) - t0, stamp(s["departure"]) - t0) for s in labels.get("stays", [])]
        regions[name] = []
        for index, (a, b) in enumerate(stays):
            if b - a < MIN_STAY:
                continue
            inside = [p for p in truth if a <= p[0] <= b]
            regions[name].append({
                "id": "%s-stay%d" % (name, index + 1),
                "lat": round(sum(p[1] for p in inside) / len(inside), 7),
                "lon": round(sum(p[2] for p in inside) / len(inside), 7),
                "radius": RADIUS,
            })
        indoors = [(a + 120, b - 60) for a, b in stays if b - a >= 600]
        for seed in SEEDS:
            rng = random.Random(seed * 1000 + TRACKS.index(name))
            wander = GaussMarkov(rng)
            reacquire = [0.0, 0.0]
            gap_until = -1.0
            last_t = None
            lines = []
            for t, lat, lon in truth:
                indoor = any(a <= t <= b for a, b in indoors)
                if indoor:
                    if t >= gap_until and rng.random() < STEP * GAP_RATE:
                        gap_until = t + rng.uniform(*GAP_LENGTH)
                    if t < gap_until:
                        continue
                    e, n = wander.step(STEP, INDOOR_SIGMA, INDOOR_TAU)
                    acc = rng.uniform(*INDOOR_ACCURACY)
                else:
                    gap_until = -1.0
                    e, n = wander.step(STEP, OUTDOOR_SIGMA, OUTDOOR_TAU)
                    acc = rng.uniform(*OUTDOOR_ACCURACY)
                if last_t is not None and t - last_t >= 30:
                    reacquire = [rng.gauss(0, REACQUIRE_SIGMA), rng.gauss(0, REACQUIRE_SIGMA)]
                elif last_t is not None:
                    decay = math.exp(-(t - last_t) / REACQUIRE_TAU)
                    reacquire = [reacquire[0] * decay, reacquire[1] * decay]
                last_t = t
                my, mx = local_metres(lat)
                e_total, n_total = e + reacquire[0], n + reacquire[1]
                lines.append((t, lat + n_total / my, lon + e_total / mx, acc, lat, lon))
            with open(os.path.join(OUT, "%s-s%d.csv" % (name, seed)), "w") as out:
                out.write("# %s (real track, Benchmarks/visits/tracks) + synthetic noise, seed %d: "
                          "Benchmarks/regions/noisy/make_tracks.py\n" % (name, seed))
                out.write("t,lat,lon,acc,truth_lat,truth_lon\n")
                for row in lines:
                    out.write("%.0f,%.7f,%.7f,%.1f,%.7f,%.7f\n" % row)
    with open(os.path.join(OUT, "regions.json"), "w") as out:
        json.dump(regions, out, indent=1, sort_keys=True)
        out.write("\n")


if __name__ == "__main__":
    main()
