#!/usr/bin/env python3
"""Scores `locationctl report --dry-run --format json` runs against the hand-labelled stays of
Benchmarks/visits (issue 12), and computes the exact offline optimum. Standard library only.

    python3 score.py OUT_DIR            # OUT_DIR/<config>/<track>.jsonl, written by run.sh
    python3 score.py OUT_DIR --stays    # and each stay of the default policy: what it decided when

When OUT_DIR/synthetic holds runs on the tracks synth.py wrote to OUT_DIR/synthetic-data, a second
table scores them the same way (their labels come from the generator's truth).

Definitions (every policy is judged by the same, independent code, not by its own summary):
- Fixes: the GPX's timed points (Benchmarks/visits/gpxtrack.py), a point not newer than the one before
  dropped (as the policy's screen drops it). *Moving* fixes lie outside every labelled stay
  [arrival, departure]; *moving hours* = the track's duration minus the stays'.
- SED (synchronized Euclidean distance): from a moving fix to the uploaded track at the fix's time,
  linear interpolation in latitude/longitude between the uploaded points around it (by the points'
  own fix times), distance on the local plane with the IUGG mean radius (as SynchronizedDistance.swift).
- Live error: from a moving fix to the newest upload *decided* no later than the fix.
- Settled window of a stay: [arrival + 5 min, departure] (no detector can call a stay before it lasted
  5 minutes). Uploads per settled hour = decisions made in settled windows / their hours; a stay is
  silent after 5 minutes when no decision was made in its window. Uploads per moving hour = the other
  decisions / moving hours.
- Covered stay: one whose fixes within [arrival, arrival + 5 min] span at least 180 s. The issue's
  column counts every stay; the second column counts only covered ones, because a stay that the
  receiver did not see for most of its first 5 minutes (switched off on arrival, as in the Garmin logs)
  cannot be called before its window opens by any policy that waits for evidence: 180 s is the
  shortest evidence a rule of the bounded policy needs (automatic pausing's stillness time). Both are
  printed, the issue's first.
- Optimum at ε: for each moving stretch (a maximal run of moving fixes), the fewest of its fixes, first
  and last included, whose track keeps every fix of the stretch within ε (SED): a shortest path over
  the graph of valid shortcuts (Imai & Iri 1988). A shortcut i→j is valid when the segment's velocity
  v = (P_j − P_i)/(t_j − t_i) lies in every disc |v − (P_k − P_i)/(t_k − t_i)| ≤ ε/(t_k − t_i) for
  i < k < j; those discs do not depend on j, so once the bounding boxes of the discs seen so far have
  an empty intersection no later j can be valid, and the scan from i stops there (exact, not a
  heuristic).
"""
import datetime as dt
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
VISITS = os.path.join(HERE, "..", "visits")
sys.path.insert(0, VISITS)
import gpxtrack  # noqa: E402

R = 6371008.8
TRACKS = ["ExampleTrack", "korita-zbevnica-timed", "cerknicko-jezero", "around-visnjan-with-car"]


def plane_distance(lat1, lon1, lat2, lon2):
    d = math.pi / 180
    dlon = lon2 - lon1
    if dlon > 180:
        dlon -= 360
    elif dlon < -180:
        dlon += 360
    x = dlon * d * math.cos((lat1 + lat2) / 2 * d)
    y = (lat2 - lat1) * d
    return math.hypot(x, y) * R


def interpolate(a, b, t):
    span = b[0] - a[0]
    if span <= 0:
        return b[1], b[2]
    f = min(max((t - a[0]) / span, 0.0), 1.0)
    return a[1] + f * (b[1] - a[1]), a[2] + f * (b[2] - a[2])


def sed_all(fixes, track):
    """SED of each (t, lat, lon) fix against a track of (t, lat, lon) points sorted by t."""
    out = []
    if not track:
        return [math.inf] * len(fixes)
    import bisect
    times = [p[0] for p in track]
    for t, lat, lon in fixes:
        i = bisect.bisect_right(times, t)
        if i == 0:
            p = track[0][1:]
        elif i >= len(track):
            p = track[-1][1:]
        else:
            p = interpolate(track[i - 1], track[i], t)
        out.append(plane_distance(lat, lon, p[0], p[1]))
    return out


def quantile(values, q):
    if not values:
        return math.nan
    s = sorted(values)
    rank = math.ceil(q * len(s))
    return s[min(max(rank - 1, 0), len(s) - 1)]


def optimum(stretch, eps):
    """Fewest points of `stretch` [(t, lat, lon)] keeping every fix within eps (exact; see module doc)."""
    n = len(stretch)
    if n <= 2:
        return n
    lat0 = sum(p[1] for p in stretch) / n
    c = math.cos(lat0 * math.pi / 180)
    xs = [(p[2] - stretch[0][2]) * math.pi / 180 * c * R for p in stretch]
    ys = [(p[1] - stretch[0][1]) * math.pi / 180 * R for p in stretch]
    ts = [p[0] for p in stretch]
    inf = float("inf")
    best = [inf] * n
    best[0] = 0
    for i in range(n - 1):
        if best[i] == inf:
            continue
        discs = []
        lox, hix, loy, hiy = -inf, inf, -inf, inf
        for j in range(i + 1, n):
            dt_ = ts[j] - ts[i]
            vx = (xs[j] - xs[i]) / dt_
            vy = (ys[j] - ys[i]) / dt_
            ok = True
            for cx, cy, r in discs:
                if (vx - cx) ** 2 + (vy - cy) ** 2 > r * r * (1 + 1e-12) + 1e-18:
                    ok = False
                    break
            if ok and best[i] + 1 < best[j]:
                best[j] = best[i] + 1
            # j becomes an intermediate point of every later shortcut from i.
            cx, cy, r = (xs[j] - xs[i]) / dt_, (ys[j] - ys[i]) / dt_, eps / dt_
            discs.append((cx, cy, r))
            lox, hix = max(lox, cx - r), min(hix, cx + r)
            loy, hiy = max(loy, cy - r), min(hiy, cy + r)
            if lox > hix or loy > hiy:
                break
    return best[n - 1] + 1


def epoch(text):
    return gpxtrack.parse_time(text).timestamp()


def load_track(name, data=VISITS):
    points = gpxtrack.timed_points(os.path.join(data, "tracks", name + ".gpx"))
    fixes = []
    for time, lat, lon in points:
        t = time.timestamp()
        if fixes and t <= fixes[-1][0]:
            continue
        fixes.append((t, lat, lon))
    with open(os.path.join(data, "labels", name + ".json")) as f:
        labels = json.load(f)
    stays = [(epoch(s["arrival"]), epoch(s["departure"])) for s in labels["stays"]]
    # The generator's jump fixes (Benchmarks/noise/synth.py) are not movement: no SED is owed to them.
    jumps = set(labels.get("jumps", []))
    return [f for f in fixes if round(f[0]) not in jumps], stays


def in_stay(t, stays):
    return any(a <= t <= d for a, d in stays)


def covered(fixes, arrival):
    """Whether the fixes within the stay's first 5 minutes span the 180 s of evidence a rule needs."""
    times = [t for t, _, _ in fixes if arrival <= t <= arrival + 300]
    return bool(times) and times[-1] - times[0] >= 180


def score(fixes, stays, decisions, eps, freshness, want_optimum=True, kinds=None):
    moving = [f for f in fixes if not in_stay(f[0], stays)]
    duration = fixes[-1][0] - fixes[0][0]
    stay_seconds = sum(min(d, fixes[-1][0]) - max(a, fixes[0][0]) for a, d in stays)
    moving_hours = (duration - stay_seconds) / 3600
    windows = [(a + 300, d) for a, d in stays if d - a > 300]
    settled_hours = sum(d - a for a, d in windows) / 3600
    track = sorted((x["time"], x["lat"], x["lon"]) for x in decisions)
    sed = sed_all(moving, track)
    by_decision = sorted(decisions, key=lambda x: x["decided_at"])
    live = []
    k = -1
    for t, lat, lon in moving:
        while k + 1 < len(by_decision) and by_decision[k + 1]["decided_at"] <= t:
            k += 1
        if k >= 0:
            live.append(plane_distance(lat, lon, by_decision[k]["lat"], by_decision[k]["lon"]))
    settled = [x for x in decisions if any(a < x["decided_at"] <= d for a, d in windows)]
    quiet = [not any(a < x["decided_at"] <= d for x in decisions) for a, d in windows]
    seen = [covered(fixes, a - 300) for a, d in windows]
    by_kind = {}
    for (a, d), q, c in zip(windows, quiet, seen):
        if c:
            tally = by_kind.setdefault((kinds or {}).get(a - 300, "stay"), [0, 0])
            tally[0] += q
            tally[1] += 1
    stretches, current = [], []
    for f in fixes:
        if in_stay(f[0], stays):
            if current:
                stretches.append(current)
            current = []
        else:
            current.append(f)
    if current:
        stretches.append(current)
    return {
        "fixes": len(fixes), "uploads": len(decisions), "moving_fixes": len(moving),
        "moving_hours": moving_hours, "settled_hours": settled_hours,
        "moving_uploads": len(decisions) - len(settled), "settled_uploads": len(settled),
        "stays": len(windows), "silent": sum(quiet),
        "covered": sum(seen), "covered_silent": sum(q and s for q, s in zip(quiet, seen)), "by_kind": by_kind,
        "sed": sed, "live": live,
        "optimum": sum(optimum(s, eps) for s in stretches) if want_optimum else None,
        "freshness_violations": sum(1 for x in live if freshness and x > freshness + 1e-6),
        "sed_violations": sum(1 for x in sed if eps and x > eps + 1e-6),
    }


CONFIGS = [
    # (directory, label, ε for the SED goal and optimum, freshness bound)
    ("recipe", "recipe (iOS)", 10, None),
    ("bounded-e10-off", "bounded ε 10 m, freshness off", 10, None),
    ("bounded-e10-f50", "bounded ε 10 m, freshness 50 m (default)", 10, 50),
    ("bounded-e25-off", "bounded ε 25 m, freshness off", 25, None),
    ("bounded-e25-f50", "bounded ε 25 m, freshness 50 m", 25, 50),
    ("bounded-e10-off-nowander", "bounded ε 10 m, freshness off, no wandering stays (before 0064's fourth section)", 10, None),
]


def percent(part, whole):
    return f"{part} of {whole} ({100 * part / whole:.0f} %)" if whole else "none"


def stay_kinds(name, data):
    """{arrival time: the generator's kind of stay} for synthetic labels (none for the real ones)."""
    with open(os.path.join(data, "labels", name + ".json")) as f:
        return {epoch(s["arrival"]): s["kind"] for s in json.load(f)["stays"] if "kind" in s}


def table(out, data, tracks):
    """Prints the table of every configuration on `tracks` (runs in `out`, GPX and labels in `data`)."""
    table_of([(out, data, name) for name in tracks])


def table_of(items):
    """The table over (runs directory, data directory, track) items."""
    tracks = [name for _, _, name in items]
    where = {name: (out, data) for out, data, name in items}
    loaded = {name: load_track(name, where[name][1]) for name in tracks}
    kinds = {name: stay_kinds(name, where[name][1]) for name in tracks}
    rows = []
    optima = {}
    for directory, label, eps, freshness in CONFIGS:
        total = None
        for name in tracks:
            fixes, stays = loaded[name]
            key = (name, eps)
            result = score(fixes, stays, read_decisions(where[name][0], directory, name), eps, freshness,
                           key not in optima, kinds[name])
            if key not in optima:
                optima[key] = result["optimum"]
            result["optimum"] = optima[key]
            if total is None:
                total = {k: (list(v) if isinstance(v, list) else v) for k, v in result.items()}
                total["by_kind"] = {kind: list(t) for kind, t in result["by_kind"].items()}
            else:
                for k, v in result.items():
                    if k == "by_kind":
                        for kind, (q, n) in v.items():
                            tally = total[k].setdefault(kind, [0, 0])
                            tally[0] += q
                            tally[1] += n
                    else:
                        total[k] = total[k] + v
        rows.append((label, eps, freshness, total))
    print("| policy | uploaded | uploads / moving h | optimum / moving h (same ε) | ratio | max SED | p95 SED "
          "| SED > ε | live p95 | live max | uploads / settled h | stays silent after 5 min "
          "| covered stays silent after 5 min |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for label, eps, freshness, t in rows:
        per_h = t["moving_uploads"] / t["moving_hours"]
        opt_h = t["optimum"] / t["moving_hours"]
        print(f"| {label} | {100 * t['uploads'] / t['fixes']:.1f} % | {per_h:.1f} | {opt_h:.1f} (ε {eps} m) "
              f"| {per_h / opt_h:.2f} | {max(t['sed']):.1f} m | {quantile(t['sed'], 0.95):.1f} m "
              f"| {t['sed_violations']} of {len(t['sed'])} | {quantile(t['live'], 0.95):.0f} m | {max(t['live']):.0f} m "
              f"| {t['settled_uploads'] / t['settled_hours']:.2f} "
              f"| {percent(t['silent'], t['stays'])} | {percent(t['covered_silent'], t['covered'])} |")
    t = rows[0][3]
    print()
    print(f"{t['fixes']} fixes on {len(tracks)} tracks; moving {t['moving_hours']:.2f} h "
          f"({t['moving_fixes']} fixes), settled windows {t['settled_hours']:.2f} h in {t['stays']} stays "
          f"({t['covered']} covered).")
    for label, eps, freshness, t in rows:
        if freshness:
            print(f"- {label}: freshness bound {freshness} m exceeded on {t['freshness_violations']} of "
                  f"{len(t['live'])} moving fixes.")
    if any(kind != "stay" for _, _, _, t in rows for kind in t["by_kind"]):
        print("- covered stays silent after 5 min, by the generator's kind of stay:")
        for label, eps, freshness, t in rows:
            print(f"  - {label}: " + ", ".join(f"{kind} {q} of {n}" for kind, (q, n) in sorted(t["by_kind"].items())))


def read_decisions(out, directory, name):
    with open(os.path.join(out, directory, name + ".jsonl")) as f:
        lines = [json.loads(line) for line in f if line.strip()]
    return [x for x in lines if x.get("type") == "decision"]


def stay_listing(out, data, tracks, directory="bounded-e10-f50"):
    """Each stay of one configuration: covered or not, and every decision from its arrival on
    (minutes after the labelled arrival; * = inside the settled window)."""
    for name in tracks:
        fixes, stays = load_track(name, data)
        decisions = read_decisions(out, directory, name)
        for a, d in stays:
            if d - a <= 300:
                continue
            said = [x for x in decisions if a <= x["decided_at"] <= d + 60]
            words = ", ".join(
                f"{x['kind']} {(x['decided_at'] - a) / 60:.1f}{'*' if a + 300 < x['decided_at'] <= d else ''}"
                for x in sorted(said, key=lambda x: x["decided_at"]))
            print(f"{name} {dt.datetime.fromtimestamp(a, dt.timezone.utc):%H:%M} ({(d - a) / 60:.0f} min, "
                  f"{'covered' if covered(fixes, a) else 'not covered'}): {words or 'nothing'}")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    out = args[0] if args else os.path.join(HERE, "out")
    synthetic = os.path.join(out, "synthetic")
    synthetic_data = os.path.join(out, "synthetic-data")
    synthetic_tracks = sorted(n[:-4] for n in os.listdir(os.path.join(synthetic_data, "tracks"))) \
        if os.path.isdir(synthetic) else []
    if "--stays" in sys.argv:
        stay_listing(out, VISITS, TRACKS)
        if synthetic_tracks:
            stay_listing(synthetic, synthetic_data, synthetic_tracks)
        return
    print("Real tracks (the headline):")
    print()
    table(out, VISITS, TRACKS)
    if synthetic_tracks:
        print()
        print(f"Synthetic tracks (synth.py, {len(synthetic_tracks)} tracks, labels from the generator's truth):")
        print()
        table(synthetic, synthetic_data, synthetic_tracks)
    urban = os.path.join(out, "urban")
    if os.path.isdir(urban):
        halves = read_split()
        urban_data = os.path.join(out, "urban-data")
        urban_tracks = sorted(n[:-4] for n in os.listdir(os.path.join(urban_data, "tracks")))
        for half in ("reporting", "tuning"):
            items = [(out, VISITS, n) for n in TRACKS if halves.get(n) == half]
            items += [(urban, urban_data, n) for n in urban_tracks if halves.get(n) == half]
            print()
            print(f"Issue 35, {half} half (Benchmarks/noise/split.txt): the real tracks "
                  f"{', '.join(n for _, _, n in items if n in TRACKS)} and {sum(1 for n in urban_tracks if halves.get(n) == half)} "
                  "urban tracks of Benchmarks/noise (jump fixes left out of the moving fixes):")
            print()
            table_of(items)


def read_split():
    """{track: half} from Benchmarks/noise/split.txt."""
    halves = {}
    with open(os.path.join(HERE, "..", "noise", "split.txt")) as f:
        for line in f:
            words = line.split()
            if len(words) == 2 and not line.startswith("#"):
                halves[words[1]] = words[0]
    return halves


if __name__ == "__main__":
    main()
