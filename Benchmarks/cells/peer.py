#!/usr/bin/env python3
"""The peer: what a user script would do with Python's sqlite3 (the same SQLite library): import the CSV with
executemany into a rowid table with a separate index on (mcc, net, area, cell, radio), then the same look-ups,
warm, timed one at a time. Prints one JSON object. Usage: peer.py CSV TABLE KEYS"""
import csv, json, os, sqlite3, sys, time

csv_path, table, keys_path = sys.argv[1:4]
if os.path.exists(table):
    os.remove(table)
start = time.perf_counter()
db = sqlite3.connect(table)
db.execute("PRAGMA journal_mode = OFF")
db.execute("PRAGMA synchronous = OFF")
db.execute("CREATE TABLE cells (radio TEXT, mcc INTEGER, net INTEGER, area INTEGER, cell INTEGER, lon REAL, lat REAL,"
           " range INTEGER, samples INTEGER, updated INTEGER)")
rows = 0
with open(csv_path, newline="") as f:
    reader = csv.reader(f)
    next(reader)
    batch = []
    for r in reader:
        batch.append((r[0], int(r[1]), int(r[2]), int(r[3]), int(r[4]), float(r[6]), float(r[7]), int(r[8]),
                      int(r[9]), int(r[12])))
        if len(batch) == 100000:
            db.executemany("INSERT INTO cells VALUES (?,?,?,?,?,?,?,?,?,?)", batch)
            rows += len(batch)
            batch = []
    db.executemany("INSERT INTO cells VALUES (?,?,?,?,?,?,?,?,?,?)", batch)
    rows += len(batch)
db.execute("CREATE INDEX cells_key ON cells (mcc, net, area, cell, radio)")
db.commit()
import_s = time.perf_counter() - start
size = os.path.getsize(table)
keys = [k.split(",") for k in open(keys_path).read().split("\n") if k]
keys = [(int(k[1]), int(k[2]), int(k[3]), int(k[4]), k[0]) for k in keys]
sql = "SELECT lat, lon, range, samples FROM cells WHERE mcc = ? AND net = ? AND area = ? AND cell = ? AND radio = ?"
for k in keys:
    db.execute(sql, k).fetchone()
times, found, checksum = [], 0, 0.0
for k in keys:
    t = time.perf_counter_ns()
    row = db.execute(sql, k).fetchone()
    times.append(time.perf_counter_ns() - t)
    if row:
        found += 1
        checksum += row[0] + row[1]
times.sort()
print(json.dumps({"rows": rows, "import_s": import_s, "rows_per_s": rows / import_s, "bytes": size,
                  "bytes_per_million": size / rows * 1e6, "lookups": len(keys), "found": found, "checksum": checksum,
                  "p50_ns": times[len(times) // 2], "p99_ns": times[int(len(times) * 0.99)]}, sort_keys=True))
