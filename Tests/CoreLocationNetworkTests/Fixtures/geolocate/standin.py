#!/usr/bin/env python3
"""A local stand-in for an Ichnaea geolocate service (POST /v1/geolocate), for tests and the benchmark.

It solves positions from a made-up access-point map (JSON: {"aa:bb:..": [lat, lon], ...}) as the
signal-weighted centroid of the known access points (weight 10^(dBm/20), i.e. amplitude); with fewer than two
known, from the first known cell of `cellTowers` (map keys "cell/RADIO/MCC/MNC/AREA/CID": [lat, lon, range]);
answers 404 when neither gives a position (as Ichnaea does), records every request (method, path, User-Agent, body) as one
JSON line in the log, and injects faults: POST /control {"fault": "404"|"400"|"429"|"500"|"503"|"slow"|
"malformed"|"none", "times": N} makes the next N geolocate requests fail that way (N absent: until changed).

Usage: standin.py MAP.json LOG.jsonl  -> prints "PORT <n>" once it listens on 127.0.0.1:<n> (kernel-chosen).
Python standard library only.
"""
import json
import math
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

access_points = json.load(open(sys.argv[1]))
log_path = sys.argv[2]
lock = threading.Lock()
fault = {"fault": "none", "times": None}


def solve(body):
    known = []
    for ap in body.get("wifiAccessPoints", []):
        position = access_points.get(str(ap.get("macAddress", "")).lower())
        if position is not None:
            known.append((position, 10 ** (float(ap.get("signalStrength", -80)) / 20)))
    if len(known) < 2:
        return solve_cells(body)
    total = sum(w for _, w in known)
    lat = sum(p[0] * w for p, w in known) / total
    lon = sum(p[1] * w for p, w in known) / total
    # Accuracy: the weighted spread of the access points around the answer, at least 20 m.
    spread = 0.0
    for p, w in known:
        dy = (p[0] - lat) * 111_320
        dx = (p[1] - lon) * 111_320 * math.cos(math.radians(lat))
        spread += w * (dx * dx + dy * dy)
    return {"location": {"lat": lat, "lng": lon}, "accuracy": max(20.0, math.sqrt(spread / total))}


def solve_cells(body):
    """Ichnaea's cell answer: the first known tower of `cellTowers`, its range as the accuracy. Cells are in the map
    as "cell/RADIO/MCC/MNC/AREA/CID": [lat, lon, range] (RADIO as Ichnaea's radioType, or "any")."""
    for tower in body.get("cellTowers", []) or []:
        numbers = [tower.get(k) for k in ("mobileCountryCode", "mobileNetworkCode", "locationAreaCode", "cellId")]
        for radio in (tower.get("radioType"), "any"):
            position = access_points.get("cell/%s/%s/%s/%s/%s" % tuple([radio] + numbers))
            if position is not None:
                return {"location": {"lat": position[0], "lng": position[1]}, "accuracy": float(position[2])}
    return None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, payload, raw=None):
        data = raw if raw is not None else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length)
        if self.path == "/control":
            with lock:
                fault.update(json.loads(raw))
            return self.reply(200, {"ok": True})
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        with lock:
            current = fault["fault"]
            if current != "none" and fault.get("times") is not None:
                fault["times"] -= 1
                if fault["times"] <= 0:
                    fault.update({"fault": "none", "times": None})
            with open(log_path, "a") as log:
                log.write(json.dumps({"path": self.path, "userAgent": self.headers.get("User-Agent"),
                                      "body": body, "fault": current}) + "\n")
        if self.path != "/v1/geolocate" or body is None:
            return self.reply(400, {"error": {"code": 400, "message": "Parse Error"}})
        if current in ("404", "400", "429", "500", "503"):
            return self.reply(int(current), {"error": {"code": int(current), "message": "injected"}})
        if current == "slow":
            time.sleep(15)  # well past any client timeout, even on a starved machine
        if current == "malformed":
            return self.reply(200, None, raw=b'{"location": {"lat": "north"}')
        answer = solve(body)
        if answer is None:
            return self.reply(404, {"error": {"code": 404, "message": "Not found"}})
        return self.reply(200, answer)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print("PORT", server.server_address[1], flush=True)
server.serve_forever()
