"""Land raster and per-country place trees for the gazetteer build (loaded by gazetteer-build.py).

Land raster (section LAND): the country the reverse look-up's polygon test gives, per 0.1-degree cell that
no polygon edge touches (closed cell, with a 1-microdegree margin), so a query in such a cell skips the
polygon test. Cells an edge touches say "test": the exact polygon test decides there. The value of a clean
cell is computed here with the same rules as CountryIndex.country in Swift, exactly (integer arithmetic):
even-odd parity of an eastward ray per ring (half-open edge rule), the country's parity over its rings, and
among the countries containing the point the one whose innermost odd ring has the smallest bounding box
(ties: the lowest country index). No edge is inside a clean cell, so every point of the cell has the parity
of its centre; rings are closed (checked), so a ring whose bounding box misses a point has even parity there.

Place trees (section TREE): a permutation of the places in which each country's places (contiguous in the
place order) form an implicit k-d tree: the node of slot range [lo, hi) is slot (lo + hi) // 2, its children
are [lo, mid) and [mid + 1, hi); each range is split on the axis (latitude or longitude) of its larger
extent in microdegrees. The Swift search prunes with each subtree's bounding box, so the split rule only
shapes the tree, never the answer.
"""

CELL = 100_000  # microdegrees (0.1 degree)
ROWS = 1_800
COLUMNS = 3_600
SEA, TEST = 0, 1  # raster values; country k is k + 2


def mark_edge(dirty, x1, y1, x2, y2):
    """Marks every cell whose closed rectangle the segment comes within 1 microdegree of (conservative)."""
    X1, Y1, X2, Y2 = x1 + 180_000_000, y1 + 90_000_000, x2 + 180_000_000, y2 + 90_000_000
    if X1 > X2:
        X1, Y1, X2, Y2 = X2, Y2, X1, Y1
    first = max(0, (X1 - 1) // CELL)
    last = min(COLUMNS - 1, (X2 + 1) // CELL)
    for c in range(first, last + 1):
        xa, xb = max(X1, c * CELL - 1), min(X2, (c + 1) * CELL + 1)
        if xa > xb:
            continue
        if X1 == X2:
            low, high = min(Y1, Y2), max(Y1, Y2)
        else:
            dx, dy = X2 - X1, Y2 - Y1
            ya = Y1 + (xa - X1) * dy // dx  # floor
            yb = Y1 + (xb - X1) * dy // dx
            low, high = min(ya, yb), max(ya, yb) + 1  # +1: the ceiling
        top = min(ROWS - 1, (high + 1) // CELL)
        for r in range(max(0, (low - 1) // CELL), top + 1):
            dirty[r * COLUMNS + c] = 1


def land_raster(rings, ring_country):
    """rings: lists of (lat, lon) microdegrees, closed; ring_country: country index per ring.
    Returns the raster as a bytearray of ROWS x COLUMNS values (SEA, TEST or country + 2)."""
    if len(set(ring_country)) + 2 > 256 or max(ring_country) + 2 > 255:
        raise ValueError("the land raster stores a country in one byte: too many countries")
    dirty = bytearray(ROWS * COLUMNS)
    crossings = {}  # row -> list of (column of the crossing, ring)
    areas = []
    for ring_index, ring in enumerate(rings):
        if ring[0] != ring[-1]:
            raise ValueError(f"ring {ring_index} is not closed")
        lats = [p[0] for p in ring]
        lons = [p[1] for p in ring]
        areas.append((max(lats) - min(lats)) * (max(lons) - min(lons)))
        for (y1, x1), (y2, x2) in zip(ring, ring[1:]):
            mark_edge(dirty, x1, y1, x2, y2)
            low, high = min(y1, y2), max(y1, y2)
            # Row centres yc = r * CELL - 90e6 + CELL / 2 with low <= yc < high: the edges the ray test counts.
            base = -90_000_000 + CELL // 2
            for r in range(max(0, -((base - low) // CELL)), min(ROWS - 1, -((base - high) // CELL) - 1) + 1):
                yc = base + r * CELL
                if not ((y1 > yc) != (y2 > yc)):
                    continue
                # Column of the crossing, exactly: floor((x_cross + 180e6) / CELL), x_cross rational.
                den = y2 - y1
                num = (x1 + 180_000_000) * den + (yc - y1) * (x2 - x1)
                if den < 0:
                    num, den = -num, -den
                crossings.setdefault(r, []).append((num // (den * CELL), ring_index))
    raster = bytearray(ROWS * COLUMNS)
    for r, events in crossings.items():
        events.sort()
        odd = set()
        row = [SEA] * COLUMNS
        k = 0
        while k < len(events):
            column = events[k][0]
            while k < len(events) and events[k][0] == column:
                odd ^= {events[k][1]}
                k += 1
            # Cells east of `column` up to the next crossing column see the rings in `odd` as odd: a cell's
            # eastward ray crosses each ring an odd number of times exactly when the count west is odd too.
            following = events[k][0] if k < len(events) else COLUMNS
            if not odd:
                continue
            inside, smallest = {}, {}
            for ring_index in odd:
                country = ring_country[ring_index]
                inside[country] = not inside.get(country, False)
                smallest[country] = min(smallest.get(country, areas[ring_index]), areas[ring_index])
            winners = [(smallest[c], c) for c in inside if inside[c]]
            if winners:
                value = min(winners)[1] + 2
                start, end = max(0, column + 1), min(COLUMNS, following)
                if start < end:
                    row[start:end] = [value] * (end - start)
        raster[r * COLUMNS:(r + 1) * COLUMNS] = bytes(row)
    for cell in range(ROWS * COLUMNS):
        if dirty[cell]:
            raster[cell] = TEST
    return raster


def raster_section(raster, varint):
    """Run-length coding, row by row: varint rows, columns, cell size; then per row (length, value) pairs."""
    out = bytearray()
    for value in (ROWS, COLUMNS, CELL):
        varint(out, value)
    for r in range(ROWS):
        row = raster[r * COLUMNS:(r + 1) * COLUMNS]
        k = 0
        while k < COLUMNS:
            j = k
            while j < COLUMNS and row[j] == row[k]:
                j += 1
            varint(out, j - k)
            varint(out, row[k])
            k = j
    return bytes(out)


def tree_permutation(latitudes, longitudes, countries):
    """The TREE permutation: per run of equal `countries`, its places in implicit k-d tree order."""
    order = list(range(len(latitudes)))

    def build(lo, hi):
        stack = [(lo, hi)]
        while stack:
            lo, hi = stack.pop()
            if hi - lo <= 1:
                continue
            part = order[lo:hi]
            lat_extent = max(latitudes[i] for i in part) - min(latitudes[i] for i in part)
            lon_extent = max(longitudes[i] for i in part) - min(longitudes[i] for i in part)
            if lat_extent >= lon_extent:
                part.sort(key=lambda i: (latitudes[i], longitudes[i], i))
            else:
                part.sort(key=lambda i: (longitudes[i], latitudes[i], i))
            order[lo:hi] = part
            mid = (lo + hi) // 2
            stack.append((lo, mid))
            stack.append((mid + 1, hi))

    start = 0
    for k in range(1, len(countries) + 1):
        if k == len(countries) or countries[k] != countries[start]:
            build(start, k)
            start = k
    return order


def tree_section(order, varint):
    out = bytearray()
    for index in order:
        varint(out, index)
    return bytes(out)
