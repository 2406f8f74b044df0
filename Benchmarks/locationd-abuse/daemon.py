"""What the scripts here share (issue 37): the wire's frames, a hello, a locationd started on a socket and database of
its own, and its memory as the kernel counts it. Python 3, standard library only.

    from daemon import Daemon, frame, hello
    with Daemon(bin_dir, "--max-connections-per-uid", "4096") as daemon:
        hello(daemon.path).close()
        daemon.memory()   # {"VmRSS": kB, "VmHWM": kB}
"""
import json
import os
import resource
import shutil
import socket
import statistics
import struct
import subprocess
import tempfile
import time


def frame(message):
    payload = json.dumps(message, separators=(",", ":")).encode()
    return struct.pack(">I", len(payload)) + payload


def read_frame(sock):
    """The next frame's message, or None when the daemon closed the connection."""
    header = b""
    while len(header) < 4:
        chunk = sock.recv(4 - len(header))
        if not chunk:
            return None
        header += chunk
    (length,) = struct.unpack(">I", header)
    body = b""
    while len(body) < length:
        chunk = sock.recv(length - len(body))
        if not chunk:
            return None
        body += chunk
    return json.loads(body)


def hello(path, label="bench", timeout=30):
    """A connection that said hello and read the daemon's."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    sock.connect(path)
    sock.sendall(frame({"type": "hello", "version": 2, "label": label}))
    message = read_frame(sock)
    if not message or message.get("type") != "hello":
        sock.close()
        raise RuntimeError(f"no hello: {message}")
    return sock


def timed_hello(path, label="other", timeout=60):
    """Seconds from connect to the daemon's hello (the connection closed after)."""
    start = time.monotonic()
    hello(path, label, timeout).close()
    return time.monotonic() - start


def raise_descriptor_limit():
    """The soft descriptor limit raised to the hard one (the daemon started after inherits it); the hard one."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def medians(runs):
    """Per key, the median of the runs' values (each run a dict of numbers)."""
    return {key: statistics.median(run[key] for run in runs) for key in runs[0]}


class Daemon:
    """A fresh locationd from BIN_DIR on a socket and databases of its own in a temporary directory, with a simulated
    source and no configuration file; `options` are added to its command line, `env` to its environment. `path` is
    the socket `socket_name` in the directory, waited for before the daemon is used: `l.sock`, its own, by default
    (another, such as the gpsd front door's, is put there by `options`, in which "{work}" stands for the directory).
    Its standard error (at `log_level`) goes to the file `log` in the directory. Killed, and the directory removed,
    on exit."""

    def __init__(self, bin_dir, *options, log_level="error", env=None, socket_name="l.sock"):
        self.work = tempfile.mkdtemp(prefix="abuse-")
        self.path = os.path.join(self.work, socket_name)
        self.log = os.path.join(self.work, "locationd.log")
        env = dict(os.environ, CORELOCATION_PROMPT="never",
                   CORELOCATION_DATABASE=os.path.join(self.work, "cl.sqlite"), **(env or {}))
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [os.path.join(bin_dir, "locationd"), "--socket", os.path.join(self.work, "l.sock"),
                 "--database", os.path.join(self.work, "d.sqlite"), "--config", "/dev/null",
                 "--simulate", "48.8584,2.2945", "--log-level", log_level,
                 *(option.replace("{work}", self.work) for option in options)],
                env=env, stdout=subprocess.DEVNULL, stderr=log)
        for _ in range(400):
            if os.path.exists(self.path) or self.process.poll() is not None:
                break
            time.sleep(0.05)
        if self.process.poll() is not None:
            raise RuntimeError(f"locationd exited {self.process.returncode}: {self.log_text()[-2000:]}")
        time.sleep(0.2)

    def memory(self):
        """VmRSS (resident now) and VmHWM (the most resident so far), kB, from /proc/PID/status."""
        values = {}
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                key, _, rest = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    values[key] = int(rest.split()[0])
        return values

    def log_text(self):
        with open(self.log, errors="replace") as log:
            return log.read()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.process.kill()
        self.process.wait()
        shutil.rmtree(self.work, ignore_errors=True)
        return False
