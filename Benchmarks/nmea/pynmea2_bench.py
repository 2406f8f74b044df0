#!/usr/bin/env python3
"""Parses every line of an NMEA log with pynmea2 and prints sentences/second.
Usage: pynmea2_bench.py LOG [REPETITIONS]"""
import sys
import time

import pynmea2


def main():
    path = sys.argv[1]
    repetitions = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    with open(path, encoding="ascii") as f:
        lines = f.readlines()
    rates = []
    decoded = 0
    for _ in range(repetitions):
        decoded = 0
        start = time.perf_counter()
        for line in lines:
            try:
                pynmea2.parse(line, check=True)
                decoded += 1
            except pynmea2.ParseError:
                pass
        rates.append(decoded / (time.perf_counter() - start))
    rates.sort()
    print("pynmea2 %d sentences %d sentences/s (median of %d)" % (decoded, rates[len(rates) // 2], repetitions))


if __name__ == "__main__":
    main()
