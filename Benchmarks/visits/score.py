"""Scores detected visits against the hand-labelled stays and prints a markdown table.

    python score.py [--results DIR] [--labels DIR] [--tracks DIR] [--details]

Layout (all paths relative to this folder by default):
    tracks/<stem>.gpx                   the recorded track
    labels/<stem>.json                  its hand labels (stays, dont_care, excluded)
    out/results/<method>/<stem>.jsonl   what <method> detected on it: JSON lines
    out/results/<method>/<stem>.replay-start  optional: the time of the replay's first fix (see Times)

Detections: every line whose JSON object has "event": "visit" (other lines are ignored), with
"arrival" and "departure" (ISO-8601, or null: arrival unknown / visit still going on),
"latitude", "longitude" and optionally "horizontalAccuracy" (metres). An arrival-only visit
(departure null) that is followed by a visit with the same arrival is the same stay: the later,
completed one replaces it. An arrival-only visit never completed stays a detection with an open
end.

Times: if every detected time lies within the track's recorded span +-1 day, it is used as is
(the replay stamped fixes with the GPX's own times). Otherwise the detector ran on a replay clock
("start of replay + recorded offset"): its times are shifted by (first GPX point - replay start),
where the replay start is read from <stem>.replay-start (ISO-8601, e.g. the first "timestamp" of
`locationctl track --simulate TRACK --speed max --format json`). Without that file the track is
reported as not scorable.

Matching: a detection and a labelled stay match when their time intervals overlap (a label's
interval is its observed extent even where arrival or departure is marked unknown; a detection's
unknown arrival or open departure reaches to the track's first or last fix; both are clipped to the
track's span) and their centres are at most --max-distance
(200 m) apart. One-to-one, greedy by the length of the overlap. A detection left unmatched that
lies at least half inside one of the labels' dont_care stretches (a real stop of 4-5 min, or a
receiver-off gap that could hide a stop; for the former also within the same distance) is "don't
care": neither a true nor a false positive. Any other unmatched detection is a false positive;
any unmatched stay is a miss.

Per method and track: precision = TP / (TP + FP), recall = TP / stays; median and max of
|arrival error| and |departure error| in seconds over matched pairs whose label and detection both
know that time (n in brackets); median and max centre error in metres; and, where the detector
reports horizontalAccuracy, how many matched detections have centre error <= horizontalAccuracy.
The "all" row pools the counts and the errors of every track.
"""

import argparse
import datetime as dt
import json
import math
import os
import statistics
import sys

from gpxtrack import parse_time, timed_points

ONE_DAY = dt.timedelta(days=1)


def distance_m(lat1, lon1, lat2, lon2):
    """Haversine distance on a sphere of radius 6 371 008.8 m (mean Earth radius); the errors
    scored here are metres to kilometres, where the spherical error (< 0.5 %) does not matter."""
    radius = 6371008.8
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * radius * math.asin(math.sqrt(h))


def time_or_none(value):
    return parse_time(value) if value else None


def read_detections(path):
    """Visits in a JSON-lines file, arrival-only visits replaced by their completed form."""
    visits = []
    with open(path, encoding="utf-8") as file:
        for line in file:
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if record.get("event") != "visit":
                continue
            visit = {
                "arrival": time_or_none(record.get("arrival")),
                "departure": time_or_none(record.get("departure")),
                "latitude": float(record["latitude"]),
                "longitude": float(record["longitude"]),
                "accuracy": record.get("horizontalAccuracy"),
            }
            previous = [v for v in visits if v["departure"] is None and v["arrival"] == visit["arrival"]]
            if previous:
                visits[visits.index(previous[-1])] = visit
            else:
                visits.append(visit)
    return visits


def align_times(visits, first, last, replay_start_path):
    """Returns visits on the GPX's clock, or None (with a reason) if that cannot be done."""
    times = [t for v in visits for t in (v["arrival"], v["departure"]) if t is not None]
    if all(first - ONE_DAY <= t <= last + ONE_DAY for t in times):
        return visits, "recorded"
    if not os.path.exists(replay_start_path):
        return None, f"times are on a replay clock and {os.path.basename(replay_start_path)} is missing"
    with open(replay_start_path, encoding="utf-8") as file:
        shift = first - parse_time(file.read().strip())
    for visit in visits:
        for key in ("arrival", "departure"):
            if visit[key] is not None:
                visit[key] += shift
    return visits, f"shifted by {shift.total_seconds():.0f} s"


def read_labels(path):
    with open(path, encoding="utf-8") as file:
        labels = json.load(file)
    stays = []
    for stay in labels["stays"]:
        stays.append(
            {
                # scored times: None where the label does not know them
                "arrival": parse_time(stay["arrival"]) if stay.get("arrival_known", True) else None,
                "departure": parse_time(stay["departure"]) if stay.get("departure_known", True) else None,
                # observed extent, used for the overlap even when the times are not known
                "start": parse_time(stay["arrival"]),
                "end": parse_time(stay["departure"]),
                "latitude": stay["latitude"],
                "longitude": stay["longitude"],
            }
        )
    dont_care = [
        {
            "arrival": parse_time(item["from"]),
            "departure": parse_time(item["to"]),
            "latitude": item["latitude"],
            "longitude": item["longitude"],
        }
        for item in labels.get("dont_care", [])
    ]
    return stays, dont_care


def overlap_s(a, b, first, last):
    """Seconds two intervals share, both clipped to [first, last]. A label's interval is its observed
    extent; a detection's unknown arrival or open departure reaches to the track's first or last fix."""
    start = max(a.get("start") or a["arrival"] or first, b.get("start") or b["arrival"] or first, first)
    end = min(a.get("end") or a["departure"] or last, b.get("end") or b["departure"] or last, last)
    return (end - start).total_seconds()


def centre_error(a, b):
    return distance_m(a["latitude"], a["longitude"], b["latitude"], b["longitude"])


def is_inside(detection, stretch, first, last, max_distance):
    """True if at least half of the detection (clipped to the track) lies in a dont_care stretch
    and, when the stretch has a centre, the centres are within max_distance."""
    length = overlap_s(detection, detection, first, last)
    if overlap_s(detection, stretch, first, last) < max(0.5 * length, 1e-9):
        return False
    return stretch["latitude"] is None or centre_error(detection, stretch) <= max_distance


def match(detections, stays, dont_care_stretches, first, last, max_distance):
    """Greedy one-to-one matching; returns (pairs, false positives, don't-care count)."""
    candidates = []
    for i, detection in enumerate(detections):
        for j, stay in enumerate(stays):
            overlap = overlap_s(detection, stay, first, last)
            if overlap > 0 and centre_error(detection, stay) <= max_distance:
                candidates.append((overlap, i, j))
    candidates.sort(key=lambda c: (-c[0], c[1], c[2]))
    pairs, used_d, used_s = [], set(), set()
    for _, i, j in candidates:
        if i not in used_d and j not in used_s:
            used_d.add(i)
            used_s.add(j)
            pairs.append((detections[i], stays[j]))
    false_positives, dont_care = [], 0
    for i, detection in enumerate(detections):
        if i in used_d:
            continue
        if any(is_inside(detection, stretch, first, last, max_distance) for stretch in dont_care_stretches):
            dont_care += 1
        else:
            false_positives.append(detection)
    return pairs, false_positives, dont_care


def score_track(detections, stays, dont_care_stretches, first, last, max_distance):
    pairs, false_positives, dont_care = match(detections, stays, dont_care_stretches, first, last, max_distance)
    result = {
        "stays": len(stays),
        "detections": len(detections),
        "tp": len(pairs),
        "fp": len(false_positives),
        "fn": len(stays) - len(pairs),
        "dont_care": dont_care,
        "arrival": [],
        "departure": [],
        "centre": [],
        "covered": [],
        "pairs": pairs,
        "stay_list": stays,
        "false_positives": false_positives,
    }
    for detection, stay in pairs:
        for key in ("arrival", "departure"):
            if detection[key] is not None and stay[key] is not None:
                result[key].append(abs((detection[key] - stay[key]).total_seconds()))
        error = centre_error(detection, stay)
        result["centre"].append(error)
        if detection["accuracy"] is not None:
            result["covered"].append(error <= float(detection["accuracy"]))
    return result


def pooled(results):
    total = {key: 0 for key in ("stays", "detections", "tp", "fp", "fn", "dont_care")}
    for key in ("arrival", "departure", "centre", "covered"):
        total[key] = []
    for result in results:
        for key in total:
            total[key] += result[key]
    return total


def ratio(numerator, denominator):
    return f"{numerator / denominator:.2f}" if denominator else "—"


def spread(values, unit_format):
    if not values:
        return "—"
    return f"{unit_format.format(statistics.median(values))} / {unit_format.format(max(values))} ({len(values)})"


def row(method, track, result):
    covered = result["covered"]
    covers = f"{sum(covered)}/{len(covered)}" if covered else "—"
    return (
        f"| {method} | {track} | {result['stays']} | {result['detections']} | {result['tp']} | {result['fp']} | "
        f"{result['fn']} | {result['dont_care']} | {ratio(result['tp'], result['tp'] + result['fp'])} | "
        f"{ratio(result['tp'], result['stays'])} | {spread(result['arrival'], '{:.0f}')} | "
        f"{spread(result['departure'], '{:.0f}')} | {spread(result['centre'], '{:.0f}')} | {covers} |"
    )


def iso(value):
    return value.strftime("%H:%M:%S") if value is not None else "?"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", default=os.path.join(here, "out", "results"))
    parser.add_argument("--labels", default=os.path.join(here, "labels"))
    parser.add_argument("--tracks", default=os.path.join(here, "tracks"))
    parser.add_argument("--max-distance", type=float, default=200.0, help="metres (default 200)")
    parser.add_argument("--details", action="store_true", help="also list every match and false positive")
    parser.add_argument("--half", choices=["tuning", "reporting"],
                        help="only the tracks of this half of Benchmarks/noise/split.txt (issue 35)")
    args = parser.parse_args()

    stems = sorted(name[: -len(".json")] for name in os.listdir(args.labels) if name.endswith(".json"))
    if args.half:
        halves = {}
        with open(os.path.join(here, "..", "noise", "split.txt")) as f:
            for line in f:
                words = line.split()
                if len(words) == 2 and not line.startswith("#"):
                    halves[words[1]] = words[0]
        stems = [stem for stem in stems if halves.get(stem) == args.half]
    methods = sorted(
        name for name in os.listdir(args.results) if os.path.isdir(os.path.join(args.results, name))
    ) if os.path.isdir(args.results) else []
    if not methods:
        sys.exit(f"no results in {args.results}")

    print(
        "| method | track | stays | detections | TP | FP | FN | don't care | precision | recall | "
        "\\|arrival err\\| s median / max (n) | \\|departure err\\| s median / max (n) | "
        "centre err m median / max (n) | accuracy covers |"
    )
    print("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    notes, details = [], []
    for method in methods:
        results = []
        for stem in stems:
            path = os.path.join(args.results, method, stem + ".jsonl")
            if not os.path.exists(path):
                notes.append(f"{method} / {stem}: not run")
                continue
            points = timed_points(os.path.join(args.tracks, stem + ".gpx"))
            first, last = points[0][0], points[-1][0]
            detections, clock = align_times(
                read_detections(path), first, last, os.path.join(args.results, method, stem + ".replay-start")
            )
            if detections is None:
                notes.append(f"{method} / {stem}: not scored: {clock}")
                continue
            if clock != "recorded":
                notes.append(f"{method} / {stem}: {clock}")
            stays, dont_care_stretches = read_labels(os.path.join(args.labels, stem + ".json"))
            result = score_track(detections, stays, dont_care_stretches, first, last, args.max_distance)
            results.append(result)
            print(row(method, stem, result))
            for detection, stay in result["pairs"]:
                details.append(
                    f"| {method} | {stem} | match | {iso(stay['arrival'])}–{iso(stay['departure'])} | "
                    f"{iso(detection['arrival'])}–{iso(detection['departure'])} | "
                    f"{centre_error(detection, stay):.0f} |"
                )
            for detection in result["false_positives"]:
                details.append(
                    f"| {method} | {stem} | false positive | | "
                    f"{iso(detection['arrival'])}–{iso(detection['departure'])} | |"
                )
        if results:
            print(row(method, "**all**", pooled(results)))
            # Issue 35's measure: recall of the stays of 15 min or more.
            def long(stay):
                return (stay["end"] - stay["start"]).total_seconds() >= 900
            long_stays = [stay for r in results for stay in r["stay_list"] if long(stay)]
            found = [stay for r in results for _, stay in r["pairs"] if long(stay)]
            if long_stays:
                notes.append(f"{method}: recall of stays ≥ 15 min {len(found)} of {len(long_stays)}")
    for note in notes:
        print(f"\n- {note}", end="")
    if notes:
        print()
    if args.details:
        print("\n| method | track | kind | labelled (UTC) | detected (UTC) | centre err m |")
        print("|---|---|---|---|---|--:|")
        print("\n".join(details))


if __name__ == "__main__":
    main()
