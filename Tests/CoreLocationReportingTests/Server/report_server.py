#!/usr/bin/env python3
"""A receiving server for the reporter's tests (issue 12): OwnTracks Recorder's HTTP `/pub` and
Traccar's OsmAnd protocol, with a record of what it received and faults injected on request.

    python3 report_server.py --port 0 --store DIR/store.jsonl [--user U --password P] [--device ID ...]

Prints `PORT <n>` on its first line of standard output once it listens.

- `POST /pub` (OwnTracks HTTP mode): JSON `_type: location` with lat, lon, tst. Basic auth when
  --user is given (401 otherwise). Answers 200 with a JSON array (`[]`), as the Recorder does.
- `POST|GET /osmand?id=&timestamp=&lat=&lon=&speed=...` (Traccar's OsmAnd): 400 for a device not in
  --device (when any is given), as Traccar answers an unknown device; 200 otherwise.
- Duplicates: a request whose `Idempotency-Key` (or OwnTracks `_id`) was stored before, or an OsmAnd
  point with the same id and timestamp (Traccar's `filter.duplicate`), is acknowledged and not
  stored again; it is counted in `duplicates`.
- The store is a JSON-lines file, so a restarted server keeps what it received and still drops
  duplicates.
- `POST /_control/fault` with `{"kind": K, "count": N, ...}` queues N faults for the next N protocol
  requests: `status` (answer `status`, with `retry_after` as Retry-After if given), `slow` (wait
  `seconds` before answering), `lose_reply` (store the point, then close the connection without an
  answer), `html` (200 with an HTML page, nothing stored).
- `GET /_control/received`: `{"stored": [...], "requests": n, "duplicates": n}`.
"""
import argparse
import base64
import json
import os
import signal
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

LOCK = threading.Lock()
STATE = {"stored": [], "keys": set(), "requests": 0, "duplicates": 0, "faults": []}


def load(path):
    if not os.path.exists(path):
        return
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                record = json.loads(line)
                STATE["stored"].append(record)
                STATE["keys"].update(record["keys"])


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body=b"", content_type="application/json", headers=None):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def do_GET(self):
        url = urlsplit(self.path)
        if url.path == "/_control/received":
            with LOCK:
                payload = {k: STATE[k] for k in ("stored", "requests", "duplicates")}
            return self.reply(200, json.dumps(payload).encode())
        if url.path == "/osmand":
            return self.protocol_request("osmand", url, b"")
        self.reply(404, b"not found", "text/plain")

    def do_POST(self):
        url = urlsplit(self.path)
        data = self.body()
        if url.path == "/_control/fault":
            fault = json.loads(data)
            with LOCK:
                STATE["faults"].extend([fault] * int(fault.get("count", 1)))
            return self.reply(200, b"{}")
        if url.path == "/pub":
            return self.protocol_request("owntracks", url, data)
        if url.path == "/osmand":
            return self.protocol_request("osmand", url, data)
        self.reply(404, b"<html><body>Not Found</body></html>", "text/html")

    def protocol_request(self, protocol, url, data):
        with LOCK:
            STATE["requests"] += 1
            fault = STATE["faults"].pop(0) if STATE["faults"] else None
        if fault and fault["kind"] == "status":
            headers = {"Retry-After": str(fault["retry_after"])} if "retry_after" in fault else {}
            return self.reply(int(fault["status"]), b"{\"error\": \"injected\"}", headers=headers)
        if fault and fault["kind"] == "html":
            return self.reply(200, b"<!DOCTYPE html><html><body>Welcome to nginx!</body></html>", "text/html")
        if fault and fault["kind"] == "slow":
            time.sleep(float(fault["seconds"]))
        if protocol == "owntracks":
            if ARGS.user is not None:
                expected = base64.b64encode(f"{ARGS.user}:{ARGS.password}".encode()).decode()
                if self.headers.get("Authorization") != f"Basic {expected}":
                    return self.reply(401, b"Unauthorized", "text/plain",
                                      {"WWW-Authenticate": 'Basic realm="owntracks"'})
            try:
                message = json.loads(data)
            except ValueError:
                return self.reply(400, b"bad JSON", "text/plain")
            if message.get("_type") != "location" or not all(k in message for k in ("lat", "lon", "tst")):
                return self.reply(400, b"not a location", "text/plain")
            keys = [k for k in (self.headers.get("Idempotency-Key"), message.get("_id")) if k]
            record = {"protocol": "owntracks", "user": self.headers.get("X-Limit-U"),
                      "device": self.headers.get("X-Limit-D"), "message": message}
        else:
            query = {k: v[0] for k, v in parse_qs(url.query).items()}
            if ARGS.device and query.get("id") not in ARGS.device:
                return self.reply(400, b"", "text/plain")
            if not all(k in query for k in ("id", "timestamp", "lat", "lon")):
                return self.reply(400, b"", "text/plain")
            keys = [k for k in (self.headers.get("Idempotency-Key"),) if k]
            keys.append(f"osmand:{query['id']}:{query['timestamp']}")
            record = {"protocol": "osmand", "device": query["id"], "message": query}
        record["keys"] = keys
        with LOCK:
            if any(k in STATE["keys"] for k in keys):
                STATE["duplicates"] += 1
            else:
                STATE["stored"].append(record)
                STATE["keys"].update(keys)
                with open(ARGS.store, "a") as f:
                    f.write(json.dumps(record) + "\n")
        if fault and fault["kind"] == "lose_reply":
            # Stored, but the acknowledgement never arrives.
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        if protocol == "owntracks":
            return self.reply(200, b"[]")
        return self.reply(200, b"", "text/plain")


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--store", required=True)
    parser.add_argument("--user")
    parser.add_argument("--password", default="")
    parser.add_argument("--device", action="append", default=[])
    ARGS = parser.parse_args()
    # A parent may start us with SIGTERM blocked or ignored; a test server must die when told.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    load(ARGS.store)
    ThreadingHTTPServer.allow_reuse_address = True
    ThreadingHTTPServer.daemon_threads = True
    server = ThreadingHTTPServer(("127.0.0.1", ARGS.port), Handler)
    print(f"PORT {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
