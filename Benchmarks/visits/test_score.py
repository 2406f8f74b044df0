"""Checks score.py on made-up detections (written to a temporary folder, never committed).

    cd Benchmarks/visits && python3 -m unittest test_score

Standard library only. The track and labels are the committed ExampleTrack ones: stays at
08:06:52-08:13:26 and 08:54:08-09:26:52 (2020-10-29, UTC), a near miss at 09:50:41-09:55:21.
"""

import datetime as dt
import io
import os
import subprocess
import sys
import tempfile
import unittest

import score
from gpxtrack import parse_time

HERE = os.path.dirname(os.path.abspath(__file__))
STEM = "ExampleTrack"

# locationctl-style lines on the GPX's own clock: an arrival-only visit then its completed form,
# a second stay 15 s late with an accuracy too small for its centre error, a visit at the near
# miss (don't care), a false positive far away in time, and lines that are not visits.
RECORDED = """\
{"event":"location","time":"2020-10-29T08:00:00Z"}
not json at all
{"event":"visit","arrival":"2020-10-29T08:07:02Z","departure":null,"latitude":45.83505,"longitude":4.81476,"horizontalAccuracy":20,"time":"2020-10-29T08:09:00Z"}
{"event":"visit","arrival":"2020-10-29T08:07:02Z","departure":"2020-10-29T08:13:56Z","latitude":45.83505,"longitude":4.81476,"horizontalAccuracy":20,"time":"2020-10-29T08:14:30Z"}
{"event":"visit","arrival":"2020-10-29T08:54:23Z","departure":"2020-10-29T09:27:07Z","latitude":45.84227,"longitude":4.79810,"horizontalAccuracy":5,"time":"2020-10-29T09:28:00Z"}
{"event":"visit","arrival":"2020-10-29T09:50:50Z","departure":"2020-10-29T09:55:30Z","latitude":45.82545,"longitude":4.80340,"horizontalAccuracy":30,"time":"2020-10-29T09:56:00Z"}
{"event":"visit","arrival":"2020-10-29T10:20:00Z","departure":"2020-10-29T10:26:00Z","latitude":45.8,"longitude":4.79,"horizontalAccuracy":30,"time":"2020-10-29T10:27:00Z"}
"""


def shifted(text, delta):
    """The same lines with every ISO time moved by `delta` (a replay clock)."""
    out = []
    for line in text.splitlines():
        for token in line.split('"'):
            if token.startswith("2020-10-29T"):
                moved = (parse_time(token) + delta).strftime("%Y-%m-%dT%H:%M:%S.000Z")
                line = line.replace(token, moved)
        out.append(line)
    return "\n".join(out) + "\n"


class ScoreTests(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.results = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, method, text, replay_start=None, stem=STEM):
        folder = os.path.join(self.results, method)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, stem + ".jsonl"), "w") as file:
            file.write(text)
        if replay_start is not None:
            with open(os.path.join(folder, STEM + ".replay-start"), "w") as file:
                file.write(replay_start + "\n")

    def run_score(self):
        result = subprocess.run(
            [sys.executable, os.path.join(HERE, "score.py"), "--results", self.results],
            capture_output=True, text=True, check=True,
        )
        return result.stdout

    def test_arrival_only_visit_is_replaced_by_its_completed_form(self):
        self.write("fake", RECORDED)
        visits = score.read_detections(os.path.join(self.results, "fake", STEM + ".jsonl"))
        self.assertEqual(len(visits), 4)
        self.assertEqual(visits[0]["departure"], parse_time("2020-10-29T08:13:56Z"))

    def test_recorded_clock(self):
        self.write("fake", RECORDED)
        line = [l for l in self.run_score().splitlines() if l.startswith(f"| fake | {STEM} |")][0]
        # 2 stays, 4 detections, TP 2, FP 1, FN 0, don't care 1; arrival errors 10 s and 15 s.
        self.assertIn("| 2 | 4 | 2 | 1 | 0 | 1 | 0.67 | 1.00 | 12 / 15 (2) | 22 / 30 (2) |", line)
        # centre errors 0 m (covered by 20 m) and 11 m (not covered by 5 m)
        self.assertIn("| 6 / 11 (2) | 1/2 |", line)

    def test_replay_clock_is_shifted_back(self):
        first = parse_time("2020-10-29T07:45:38Z")
        replay_start = parse_time("2026-11-23T01:00:00Z")
        self.write("fake", shifted(RECORDED, replay_start - first), replay_start="2026-11-23T01:00:00.000Z")
        line = [l for l in self.run_score().splitlines() if l.startswith(f"| fake | {STEM} |")][0]
        self.assertIn("| 2 | 4 | 2 | 1 | 0 | 1 | 0.67 | 1.00 | 12 / 15 (2) | 22 / 30 (2) |", line)

    def test_replay_clock_without_start_is_not_scored(self):
        self.write("fake", shifted(RECORDED, dt.timedelta(days=2000)))
        self.assertIn("not scored", self.run_score())

    def test_unknown_arrival_and_open_departure(self):
        text = (
            '{"event":"visit","arrival":null,"departure":null,"latitude":45.84217,"longitude":4.79810,'
            '"horizontalAccuracy":50}\n'
        )
        self.write("fake", text)
        line = [l for l in self.run_score().splitlines() if l.startswith(f"| fake | {STEM} |")][0]
        # open on both ends it overlaps both stays, but only the one within 200 m matches; no times to score
        self.assertIn("| 2 | 1 | 1 | 0 | 1 | 0 | 1.00 | 0.50 | — | — | 0 / 0 (1) | 1/1 |", line)

    def test_receiver_off_gap_is_dont_care(self):
        # cerknicko-jezero: receiver off 15:24:46-15:38:49 (a 'gap' with no centre); 14:50-14:56 is walking.
        text = (
            '{"event":"visit","arrival":"2010-08-05T15:25:00Z","departure":"2010-08-05T15:38:00Z",'
            '"latitude":45.7443,"longitude":14.3671}\n'
            '{"event":"visit","arrival":"2010-08-05T14:50:00Z","departure":"2010-08-05T14:56:00Z",'
            '"latitude":45.7664,"longitude":14.3555}\n'
        )
        self.write("fake", text, stem="cerknicko-jezero")
        line = [l for l in self.run_score().splitlines() if l.startswith("| fake | cerknicko-jezero |")][0]
        self.assertIn("| 3 | 2 | 0 | 1 | 3 | 1 | 0.00 | 0.00 |", line)


if __name__ == "__main__":
    unittest.main()
