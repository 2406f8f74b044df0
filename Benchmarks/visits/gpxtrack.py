"""Reads the timed track points of a GPX file with the standard library only.

Points are every <trkpt> of every track and segment, in document order (as locationctl's GPX
parser takes them); points without a <time> are skipped. Times are returned as aware UTC datetimes.
"""

import datetime as dt
import xml.etree.ElementTree as ET


def parse_time(text):
    """ISO-8601 with 'Z' or an offset, optional fractional seconds -> aware UTC datetime."""
    text = text.strip().replace("Z", "+00:00")
    value = dt.datetime.fromisoformat(text)
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.timezone.utc)
    return value.astimezone(dt.timezone.utc)


def timed_points(path):
    """[(time, latitude, longitude)] for the timed <trkpt>s of `path`."""
    points = []
    for element in ET.parse(path).getroot().iter():
        if element.tag.rsplit("}", 1)[-1] != "trkpt":
            continue
        time = None
        for child in element:
            if child.tag.rsplit("}", 1)[-1] == "time" and child.text:
                time = parse_time(child.text)
        if time is not None:
            points.append((time, float(element.get("lat")), float(element.get("lon"))))
    return points
