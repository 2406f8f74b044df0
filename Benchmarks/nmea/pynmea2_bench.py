#!/usr/bin/env python3
"""Parses every line of an NMEA log with pynmea2 and prints sentences/second (median of REPETITIONS).
pynmea2.parse checks the checksum and splits the fields but converts them lazily, on attribute access;
with --typed every typed field of each sentence is also read (getattr), which converts it as our parser
does for every field. Usage: pynmea2_bench.py LOG [REPETITIONS] [--typed]"""
import sys
import time

import pynmea2


def main():
    path = sys.argv[1]
    repetitions = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    typed = "--typed" in sys.argv[3:]
    with open(path, encoding="ascii") as f:
        lines = f.readlines()
    rates = []
    decoded = 0
    for _ in range(repetitions):
        decoded = 0
        start = time.perf_counter()
        for line in lines:
            try:
                sentence = pynmea2.parse(line, check=True)
                if typed:
                    for field in sentence.fields:
                        if len(field) > 2:
                            getattr(sentence, field[1])
                decoded += 1
            except pynmea2.ParseError:
                pass
        rates.append(decoded / (time.perf_counter() - start))
    rates.sort()
    name = "pynmea2-typed" if typed else "pynmea2"
    print("%s %d sentences %d sentences/s (median of %d)" % (name, decoded, rates[len(rates) // 2], repetitions))


if __name__ == "__main__":
    main()
