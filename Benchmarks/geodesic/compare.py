#!/usr/bin/env python3
"""Compare two float64 distance files: prints max and median |difference| in metres."""
import sys
from array import array


def load(path):
    a = array("d")
    with open(path, "rb") as f:
        a.frombytes(f.read())
    if sys.byteorder != "little":
        a.byteswap()
    return a


a, b = load(sys.argv[1]), load(sys.argv[2])
assert len(a) == len(b), (len(a), len(b))
d = sorted(abs(x - y) for x, y in zip(a, b))
nan = sum(1 for x in d if x != x)
print("pairs %d  max |diff| %.3e m  median |diff| %.3e m  identical %d  nan %d"
      % (len(d), d[-1 - nan] if nan < len(d) else float("nan"), d[len(d) // 2],
         sum(1 for x, y in zip(a, b) if x == y), nan))
