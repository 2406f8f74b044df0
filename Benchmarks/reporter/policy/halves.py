#!/usr/bin/env python3
"""Scores ReportPolicyRun's decision lines per half of Benchmarks/noise/split.txt (issue 35), with score.py's
definitions: the real tracks of Benchmarks/visits and the urban tracks of Benchmarks/noise (jump fixes left out
of the moving fixes). Prints one markdown row per configuration.

    python3 halves.py HALF URBAN_GPX_DIR LABEL=RUNS_DIR:EPSILON ...
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import score as S  # noqa: E402

NOISE = os.path.join(HERE, "..", "..", "noise")


def load(name, urban_gpx):
    if name in S.TRACKS:
        return S.load_track(name, S.VISITS)
    pts = S.gpxtrack.timed_points(os.path.join(urban_gpx, name + ".gpx"))
    fixes = []
    for t, lat, lon in pts:
        ts = t.timestamp()
        if not fixes or ts > fixes[-1][0]:
            fixes.append((ts, lat, lon))
    labels = json.load(open(os.path.join(NOISE, "labels", name + ".json")))
    stays = [(S.epoch(s["arrival"]), S.epoch(s["departure"])) for s in labels["stays"]]
    jumps = set(labels.get("jumps", []))
    return [f for f in fixes if round(f[0]) not in jumps], stays


def main():
    half, urban_gpx = sys.argv[1], sys.argv[2]
    halves = S.read_split()
    names = [n for n in S.TRACKS if halves.get(n) == half]
    names += sorted(n[:-4] for n in os.listdir(urban_gpx) if halves.get(n[:-4]) == half)
    loaded = {n: load(n, urban_gpx) for n in names}
    print("| half | policy | stays silent after 5 min | uploads / settled h | uploads / moving h ÷ optimum "
          "| SED > ε | SED p99 | SED max |")
    print("|---|---|---|---|---|---|---|---|")
    for spec in sys.argv[3:]:
        label, rest = spec.split("=", 1)
        runs, eps = rest.rsplit(":", 1)
        eps = float(eps)
        total = None
        for n in names:
            fixes, stays = loaded[n]
            with open(os.path.join(runs, n + ".jsonl")) as f:
                decisions = [json.loads(line) for line in f if line.strip()]
            r = S.score(fixes, stays, [d for d in decisions if d.get("type") == "decision"], eps, None)
            if total is None:
                total = dict(r)
            else:
                for k, v in r.items():
                    if isinstance(v, (int, float)) and not isinstance(v, bool):
                        total[k] += v
                    elif isinstance(v, list):
                        total[k] = total[k] + v
        sed = total["sed"]
        print(f"| {half} | {label} | {total['silent']} of {total['stays']} ({100 * total['silent'] / total['stays']:.0f} %) "
              f"| {total['settled_uploads'] / total['settled_hours']:.2f} "
              f"| {total['moving_uploads'] / total['optimum']:.2f} ({total['moving_uploads']} / {total['optimum']}) "
              f"| {total['sed_violations']} of {len(sed)} | {S.quantile(sed, 0.99):.1f} m | {max(sed):.1f} m |")


if __name__ == "__main__":
    main()
