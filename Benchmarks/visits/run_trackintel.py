"""Runs trackintel's generate_staypoints (sliding window) on one GPX track.

    python run_trackintel.py TRACK.gpx [--gap-threshold MIN] [--include-last] > detections.jsonl

Writes one JSON object per staypoint, in the same shape as `locationctl monitor --visits --format
json` visit lines, so that score.py reads both the same way:

    {"event":"visit","arrival":"...Z","departure":"...Z","latitude":..,"longitude":..,
     "horizontalAccuracy":null,"method":"trackintel 1.4.2 sliding ..."}

Parameters (trackintel 1.4.2, Positionfixes.generate_staypoints): method='sliding',
distance_metric='haversine', dist_threshold=100 (metres), time_threshold=5 (minutes); by default
also gap_threshold=15 (minutes: a gap longer than this between two fixes breaks the window) and
include_last=False (a stay still going on when the track ends is dropped), trackintel's defaults.
trackintel's started_at is the window's first fix; its finished_at is the first fix outside the
window (Li et al. 2008), i.e. already on the way out.
"""

import argparse
import json
import sys
import warnings

import geopandas as gpd
import pandas as pd
import trackintel as ti
from shapely.geometry import Point

from gpxtrack import timed_points


def iso(timestamp):
    return timestamp.tz_convert("UTC").strftime("%Y-%m-%dT%H:%M:%SZ")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("track")
    parser.add_argument("--gap-threshold", type=float, default=15.0, help="minutes (trackintel default 15)")
    parser.add_argument("--include-last", action="store_true", help="keep a stay still going on at the end")
    args = parser.parse_args()

    points = timed_points(args.track)
    frame = pd.DataFrame(
        {
            "user_id": 0,
            "tracked_at": pd.to_datetime([p[0] for p in points], utc=True),
            "geometry": [Point(p[2], p[1]) for p in points],
        }
    )
    positionfixes = ti.Positionfixes(gpd.GeoDataFrame(frame, geometry="geometry", crs="EPSG:4326"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. "no staypoints generated" on a track without stays
        _, staypoints = positionfixes.generate_staypoints(
            method="sliding",
            distance_metric="haversine",
            dist_threshold=100,
            time_threshold=5,
            gap_threshold=args.gap_threshold,
            include_last=args.include_last,
        )
    method = (
        f"trackintel {ti.__version__} sliding dist_threshold=100 time_threshold=5 "
        f"gap_threshold={args.gap_threshold:g} include_last={args.include_last}"
    )
    for _, row in staypoints.sort_values("started_at").iterrows():
        line = {
            "event": "visit",
            "arrival": iso(row["started_at"]),
            "departure": iso(row["finished_at"]),
            "latitude": round(row.geometry.y, 6),
            "longitude": round(row.geometry.x, 6),
            "horizontalAccuracy": None,
            "method": method,
        }
        sys.stdout.write(json.dumps(line) + "\n")


if __name__ == "__main__":
    main()
