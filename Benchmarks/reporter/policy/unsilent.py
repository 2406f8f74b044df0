#!/usr/bin/env python3
"""Lists one half's stays (longer than 5 min) that had an upload after their first 5 minutes, with the first
uploads' times (seconds after the labelled arrival) and reasons: where to look when stillness falls short.

    python3 unsilent.py HALF URBAN_GPX_DIR RUNS_DIR      # e.g. tuning out/urban out/e10-off (after run.sh)
"""
import json
import os
import sys

import halves as H

S = H.S


def main():
    half, urban, runs = sys.argv[1], sys.argv[2], sys.argv[3]
    split = S.read_split()
    names = [n for n in S.TRACKS if split.get(n) == half]
    names += sorted(n[:-4] for n in os.listdir(urban) if split.get(n[:-4]) == half)
    total = silent = 0
    for name in names:
        fixes, stays = H.load(name, urban)
        with open(os.path.join(runs, name + ".jsonl")) as f:
            decisions = [d for d in (json.loads(line) for line in f if line.strip()) if d.get("type") == "decision"]
        for arrival, departure in stays:
            if departure - arrival <= 300:
                continue
            total += 1
            inside = [d for d in decisions if arrival + 300 < d["decided_at"] <= departure]
            if not inside:
                silent += 1
                continue
            print(f"{name}: stay at {arrival - fixes[0][0]:.0f} s for {(departure - arrival) / 60:.1f} min, "
                  f"{len(inside)} uploads in its window")
            for d in inside[:4]:
                print(f"    {d['decided_at'] - arrival:7.0f} s  {d['kind']:9s} {d['reason']}")
    print(f"silent {silent} of {total}")


if __name__ == "__main__":
    main()
