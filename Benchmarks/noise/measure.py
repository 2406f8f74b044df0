#!/usr/bin/env python3
"""Measures the noise of REAL GPS recordings: sampling, gaps, spread and correlation time of fixes
during stays, residual noise while moving, speeds, and jumps (issue 35: the synthetic set is built
from these figures, not invented). Standard library only; deterministic.

    python3 Benchmarks/noise/measure.py [GPSD_LOG_DIR]    # prints JSON; run.sh writes measured.json

Inputs (every real recording the project can get from Debian or PyPI):
- Benchmarks/visits/tracks/*.gpx (gpxo 0.3.0, gpxpy 1.6.2; the built-in routes run, bike and drive are
  excerpts of two of them and add nothing) with the hand-labelled stays of Benchmarks/visits/labels;
- gpsd 3.22's regression logs, test/daemon/*.log, from Debian's source package `gpsd`
  (fetch-gpsd-logs.sh): NMEA receivers recorded by gpsd's users, most of them standing still for
  one to twenty minutes (GGA position, RMC speed). Logs of binary protocols are skipped.

Definitions:
- interval: seconds between consecutive fixes; a *gap* is an interval > 10 s on a track otherwise
  sampled at ≤ 5 s (rates per hour of recording).
- stay: a labelled stay (GPX), or a whole gpsd log whose fixes all lie within 100 m of their mean and
  whose median RMC speed is < 0.5 m/s (a receiver standing still). Per stay, from fixes resampled on
  a 1 s grid (nearest earlier fix): `spread` = RMS distance from the mean (m); `tau` = the lag (s) at
  which the autocorrelation of the east and north deviations (averaged) first falls below 1/e;
  `max` = largest distance from the mean.
- moving noise: on tracks sampled at ≤ 2 s, outside stays, each fix's distance from the straight line
  between the fixes 4 samples before and after it, at its time (the part of the noise a smoother
  would remove; correlated error is not visible to it).
- steps over 50 m/s: one-way steps max(0, d − 10 m)/Δt > 50 m/s (sizes, m).
- jump: a fix whose step speed from the fix before, max(0, d − 10 m)/Δt, exceeds 50 m/s while the
  steps before and after it disagree (out and back). Rate per hour, and each jump's size.
- speed: step speeds of moving fixes, percentiles (real fast moves).
"""
import json
import math
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "Benchmarks", "visits"))
import gpxtrack  # noqa: E402

R = 6371008.8
GPX = ["ExampleTrack", "korita-zbevnica-timed", "cerknicko-jezero", "around-visnjan-with-car"]


def metres(lat0, lon0, lat, lon):
    x = math.radians(lon - lon0) * math.cos(math.radians((lat0 + lat) / 2)) * R
    y = math.radians(lat - lat0) * R
    return x, y


def dist(a, b):
    x, y = metres(a[1], a[2], b[1], b[2])
    return math.hypot(x, y)


def pct(values, q):
    if not values:
        return None
    s = sorted(values)
    return s[min(len(s) - 1, max(0, int(math.ceil(q * len(s))) - 1))]


def stay_stats(points):
    """points [(t, lat, lon)]: spread, max, tau on a 1 s grid."""
    t0, t1 = points[0][0], points[-1][0]
    lat0 = statistics.fmean(p[1] for p in points)
    lon0 = statistics.fmean(p[2] for p in points)
    grid, j = [], 0
    t = t0
    while t <= t1:
        while j + 1 < len(points) and points[j + 1][0] <= t:
            j += 1
        grid.append(metres(lat0, lon0, points[j][1], points[j][2]))
        t += 1
    xs = [g[0] for g in grid]
    ys = [g[1] for g in grid]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    d = [math.hypot(x - mx, y - my) for x, y in grid]
    spread = math.sqrt(statistics.fmean(v * v for v in d))
    tau = None
    n = len(grid)
    vx = statistics.fmean((x - mx) ** 2 for x in xs)
    vy = statistics.fmean((y - my) ** 2 for y in ys)
    if n > 30 and vx + vy > 0:
        for lag in range(1, n // 2):
            cx = sum((xs[i] - mx) * (xs[i + lag] - mx) for i in range(n - lag)) / (n - lag)
            cy = sum((ys[i] - my) * (ys[i + lag] - my) for i in range(n - lag)) / (n - lag)
            if (cx + cy) / (vx + vy) < 1 / math.e:
                tau = lag
                break
    return {"seconds": round(t1 - t0), "fixes": len(points), "spread_m": round(spread, 1),
            "max_m": round(max(d), 1), "tau_s": tau}


def jumps(points):
    """Out-and-back steps faster than 50 m/s: (time, size m)."""
    found = []
    for i in range(1, len(points) - 1):
        a, b, c = points[i - 1], points[i], points[i + 1]
        if b[0] <= a[0] or c[0] <= b[0]:
            continue
        out = max(0.0, dist(a, b) - 10) / (b[0] - a[0])
        back = max(0.0, dist(b, c) - 10) / (c[0] - b[0])
        if out > 50 and back > 50 and dist(a, c) < 0.5 * dist(a, b):
            found.append((b[0], round(dist(a, b))))
    return found


def track_stats(name, points, stays):
    """points [(t, lat, lon)], stays [(t0, t1)]."""
    intervals = [b[0] - a[0] for a, b in zip(points, points[1:]) if b[0] > a[0]]
    hours = (points[-1][0] - points[0][0]) / 3600
    in_stay = lambda t: any(a <= t <= b for a, b in stays)  # noqa: E731
    moving = [(a, b) for a, b in zip(points, points[1:]) if b[0] > a[0] and not in_stay(a[0]) and not in_stay(b[0])]
    speeds = [dist(a, b) / (b[0] - a[0]) for a, b in moving if b[0] - a[0] <= 15]
    residual = []
    if statistics.median(intervals) <= 2:
        for i in range(4, len(points) - 4):
            a, p, b = points[i - 4], points[i], points[i + 4]
            if in_stay(p[0]) or not (a[0] < p[0] < b[0]) or b[0] - a[0] > 20:
                continue
            f = (p[0] - a[0]) / (b[0] - a[0])
            q = (p[0], a[1] + f * (b[1] - a[1]), a[2] + f * (b[2] - a[2]))
            residual.append(dist(p, q))
    j = jumps(points)
    fast_steps = [(b[0], round(dist(a, b))) for a, b in zip(points, points[1:])
                  if b[0] > a[0] and max(0.0, dist(a, b) - 10) / (b[0] - a[0]) > 50]
    out = {
        "name": name, "fixes": len(points), "hours": round(hours, 3),
        "interval_s": {"p10": pct(intervals, 0.1), "p50": pct(intervals, 0.5), "p90": pct(intervals, 0.9)},
        "gaps_per_hour": {k: round(sum(1 for v in intervals if v > k) / hours, 2) if hours else None
                          for k in (10, 30, 120)},
        "gap_s": sorted(round(v) for v in intervals if v > 10),
        "moving_speed_m_s": {"p50": round(pct(speeds, 0.5), 2) if speeds else None,
                             "p90": round(pct(speeds, 0.9), 2) if speeds else None,
                             "p99": round(pct(speeds, 0.99), 2) if speeds else None},
        "moving_residual_m": {"rms": round(math.sqrt(statistics.fmean(v * v for v in residual)), 1),
                              "p90": round(pct(residual, 0.9), 1), "n": len(residual)} if residual else None,
        "jumps": {"count": len(j), "per_hour": round(len(j) / hours, 3) if hours else None,
                  "sizes_m": [s for _, s in j]},
        "steps_over_50_m_s": [s for _, s in fast_steps],
        "stays": [],
    }
    for a, b in stays:
        inside = [p for p in points if a <= p[0] <= b]
        if len(inside) >= 10:
            out["stays"].append(stay_stats(inside))
    return out


def nmea_points(path):
    """[(t, lat, lon)] from GGA (fix quality ≥ 1) and RMC speeds (m/s) of an NMEA log."""
    points, speeds, day_offset, last_tod = [], [], 0.0, None
    for raw in open(path, encoding="latin-1"):
        line = raw.strip()
        if not line.startswith("$") or "*" not in line:
            continue
        fields = line.split("*")[0].split(",")
        kind = fields[0][3:]
        try:
            if kind == "GGA" and len(fields) > 6 and fields[6] not in ("", "0") and fields[2] and fields[4]:
                hh, mm, ss = float(fields[1][0:2]), float(fields[1][2:4]), float(fields[1][4:])
                tod = hh * 3600 + mm * 60 + ss
                if last_tod is not None and tod < last_tod - 43200:
                    day_offset += 86400
                last_tod = tod
                lat = float(fields[2][:2]) + float(fields[2][2:]) / 60
                lon = float(fields[4][:3]) + float(fields[4][3:]) / 60
                if fields[3] == "S":
                    lat = -lat
                if fields[5] == "W":
                    lon = -lon
                t = tod + day_offset
                if not points or t > points[-1][0]:
                    points.append((t, lat, lon))
            elif kind == "RMC" and len(fields) > 7 and fields[2] == "A" and fields[7]:
                speeds.append(float(fields[7]) * 0.514444)
        except ValueError:
            continue
    return points, speeds


def main():
    result = {"gpx": [], "gpsd_logs": []}
    for name in GPX:
        pts = [(p[0].timestamp(), p[1], p[2]) for p in gpxtrack.timed_points(
            os.path.join(ROOT, "Benchmarks", "visits", "tracks", name + ".gpx"))]
        labels = json.load(open(os.path.join(ROOT, "Benchmarks", "visits", "labels", name + ".json")))
        stays = [(gpxtrack.parse_time(s["arrival"]).timestamp(), gpxtrack.parse_time(s["departure"]).timestamp())
                 for s in labels.get("stays", [])]
        result["gpx"].append(track_stats(name, pts, stays))
    if len(sys.argv) > 1:
        directory = sys.argv[1]
        for file in sorted(os.listdir(directory)):
            if not file.endswith(".log"):
                continue
            pts, speeds = nmea_points(os.path.join(directory, file))
            if len(pts) < 30 or pts[-1][0] - pts[0][0] < 60:
                continue
            lat0 = statistics.fmean(p[1] for p in pts)
            lon0 = statistics.fmean(p[2] for p in pts)
            still = (max(dist((0, lat0, lon0), p) for p in pts) < 100
                     and (not speeds or statistics.median(speeds) < 0.5))
            stats = track_stats(file, pts, [(pts[0][0], pts[-1][0])] if still else [])
            stats["still"] = still
            result["gpsd_logs"].append(stats)
    stays = [s for t in result["gpx"] + result["gpsd_logs"] for s in t["stays"]]
    taus = [s["tau_s"] for s in stays if s["tau_s"]]
    result["summary"] = {
        "stays": len(stays),
        "stay_spread_m": {"p10": pct([s["spread_m"] for s in stays], 0.1),
                          "p50": pct([s["spread_m"] for s in stays], 0.5),
                          "p90": pct([s["spread_m"] for s in stays], 0.9),
                          "max": max(s["spread_m"] for s in stays)},
        "stay_tau_s": {"n": len(taus), "p10": pct(taus, 0.1), "p50": pct(taus, 0.5), "p90": pct(taus, 0.9)},
        "jumps": sum(t["jumps"]["count"] for t in result["gpx"] + result["gpsd_logs"]),
        "hours": round(sum(t["hours"] for t in result["gpx"] + result["gpsd_logs"]), 2),
    }
    json.dump(result, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
