#!/usr/bin/env python3
"""Time from a serving-cell change to the new fix out of the engine, through the released `locationctl`.

A private dbus-daemon, python-dbusmock 0.38's `modemmanager` template with the Location interface added by the
ModemManager tests' driver script; `locationctl track --source modem:cell --accuracy 3km --format json` on it
(CORELOCATION_MODEM_BUS) with a cell table of CHANGES+1 generated LTE cells. Each round changes the mock's
Location[3GPP_LAC_CI] (UpdateProperties → PropertiesChanged) and waits for the fix line on locationctl's standard
output; the time is taken just before the D-Bus call and when the line is read. Every fix is checked against the
cell's coordinates. One JSON object on stdout: the times in ms (median, p90, min, max).

  cellchange.py LOCATIONCTL DBUSMOCK_PATH [CHANGES]
"""
import json
import os
import queue
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import dbus

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
driver = os.path.join(root, "Tests/CoreLocationCellularTests/Fixtures/modemmanager/driver.py")
locationctl, dbusmock_path = sys.argv[1], sys.argv[2]
changes = int(sys.argv[3]) if len(sys.argv) > 3 else 25

scratch = tempfile.mkdtemp(prefix="cellchange-")
children = []


def cleanup():
    for child in reversed(children):
        if child.poll() is None:
            child.kill()
            child.wait(timeout=10)
    # After the children, so nothing writes in it any more.
    shutil.rmtree(scratch, ignore_errors=True)


try:
    config = os.path.join(scratch, "bus.conf")
    with open(config, "w") as f:
        f.write(f"""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:path={scratch}/bus</listen>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/>
<allow own="*"/></policy></busconfig>""")
    daemon = subprocess.Popen(["dbus-daemon", f"--config-file={config}", "--nofork", "--print-address=1"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    children.append(daemon)
    address = daemon.stdout.readline().strip()
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=address, DBUS_SESSION_BUS_ADDRESS=address)
    mock = subprocess.Popen([sys.executable, "-m", "dbusmock", "--system", "-t", "modemmanager"],
                            env=dict(env, PYTHONPATH=dbusmock_path), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    children.append(mock)
    bus = dbus.bus.BusConnection(address)
    for _ in range(200):
        if bus.name_has_owner("org.freedesktop.ModemManager1"):
            break
        time.sleep(0.05)
    modem = subprocess.run([sys.executable, driver, "add"], env=env, check=True, capture_output=True,
                           text=True).stdout.strip()

    # LTE cells 262-01, TAC 0x2B67, CI 0x1A60000 + i, 1 km apart northwards from 52.40 N 13.40 E, range 1 km.
    table = os.path.join(scratch, "cells.sqlite")
    csv = os.path.join(scratch, "cells.csv")
    with open(csv, "w") as f:
        f.write("radio,mcc,net,area,cell,unit,lon,lat,range,samples,changeable,created,updated,averageSignal\n")
        for i in range(changes + 1):
            f.write(f"LTE,262,1,{0x2B67},{0x1A60000 + i},0,13.4,{52.4 + i * 0.009:.4f},1000,10,1,0,1600000000,0\n")
    tool_env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": scratch, "XDG_DATA_HOME": scratch,
        "CORELOCATION_DATABASE": os.path.join(scratch, "corelocation.sqlite"), "CORELOCATION_PROMPT": "never",
        "CORELOCATION_DEFAULT_POLICY": "when-in-use", "CORELOCATION_CELL_TABLE": table,
        "CORELOCATION_MODEM_BUS": address,
    }
    subprocess.run([locationctl, "cells", "import", csv], env=tool_env, check=True, capture_output=True)

    track = subprocess.Popen([locationctl, "track", "--source", "modem:cell", "--accuracy", "3km", "--format", "json"],
                             env=tool_env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
    children.append(track)
    lines = queue.Queue()

    def reader():
        for line in track.stdout:
            lines.put((time.perf_counter(), line))

    threading.Thread(target=reader, daemon=True).start()

    obj = bus.get_object("org.freedesktop.ModemManager1", modem)
    properties = dbus.Interface(obj, "org.freedesktop.DBus.Properties")
    mocked = dbus.Interface(obj, "org.freedesktop.DBus.Mock")
    location = "org.freedesktop.ModemManager1.Modem.Location"
    for _ in range(500):  # locationctl's demand sets the modem up for 3GPP_LAC_CI (1)
        if int(properties.Get(location, "Enabled")) == 1:
            break
        time.sleep(0.02)
    else:
        sys.exit("locationctl never set the modem up")

    times = []
    for i in range(changes + 1):
        value = dbus.String(f"262,01,0,{0x1A60000 + i:X},2B67", variant_level=1)
        started = time.perf_counter()
        mocked.UpdateProperties(location, {"Location": dbus.Dictionary({dbus.UInt32(1): value}, signature="uv")})
        arrived, line = lines.get(timeout=30)
        fix = json.loads(line)
        assert abs(fix["latitude"] - (52.4 + i * 0.009)) < 1e-6 and abs(fix["longitude"] - 13.4) < 1e-6, line
        if i > 0:  # the first change also waits for the engine's first delivery: kept out
            times.append((arrived - started) * 1000)
        time.sleep(0.1)
    times.sort()
    print(json.dumps({
        "changes": len(times), "median_ms": statistics.median(times),
        "p90_ms": times[int(0.9 * (len(times) - 1))], "min_ms": times[0], "max_ms": times[-1],
    }))
finally:
    cleanup()
