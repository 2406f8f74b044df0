#!/usr/bin/python3
"""Makes the D-Bus messages the marshaller tests decode (Tests/CoreLocationDBusTests/DBusWireOracleTests.swift).

Two real implementations, neither of them ours:
  glib/NAME-le.bin, glib/NAME-be.bin   GLib's GDBusMessage.to_blob() (Debian 12: GLib 2.74, python3-gi), the same
                                       message in little- and big-endian byte order
  libdbus/NAME.bin                     a message dbus-send (libdbus 1.14) sent, as dbus-daemon passed it on to
                                       `dbus-monitor --binary` on a private bus (the daemon adds the sender)

Run with Debian's python3 (python3-gi, dbus, dbus-bin): /usr/bin/python3 make-fixtures.py
The values here and in the Swift tests are the same, written twice on purpose: the test checks our decoder
against what GLib and libdbus wrote, and our encoder's bodies against GLib's bytes.
"""
import os
import subprocess
import tempfile
import time

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
V = GLib.Variant


def glib_messages():
    call = Gio.DBusMessage.new_method_call(
        "org.corelocation.Test", "/org/corelocation/Test", "org.corelocation.Test1", "Echo")
    call.set_serial(7)
    call.set_body(V("(ybnqiuxtdsogv(is)a{sv}aayax)", (
        200, True, -3, 65000, -70000, 4000000000, -5000000000, 18000000000000000000, -12.5, "héllo ✓",
        "/org/freedesktop/NetworkManager/AccessPoint/7", "a{sv}", V("i", 1), (42, "answer"),
        {"Ssid": V("ay", b"ab"), "Strength": V("y", 70)}, [b""], [])))
    yield "call-all-types", call

    signal = Gio.DBusMessage.new_signal(
        "/org/bluez", "org.freedesktop.DBus.ObjectManager", "InterfacesAdded")
    signal.set_serial(1234)
    signal.set_sender(":1.42")
    signal.set_body(V("(oa{sa{sv}})", (
        "/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF",
        {"org.bluez.Device1": {
            "Address": V("s", "AA:BB:CC:DD:EE:FF"),
            "ManufacturerData": V("a{qv}", {76: V("ay", bytes([2, 21, 0xE2, 0xC5]))}),
            "RSSI": V("n", -60),
        }})))
    yield "signal-interfaces-added", signal

    reply = Gio.DBusMessage.new_method_reply(call)
    reply.set_serial(8)
    reply.set_sender(":1.4")
    reply.set_destination(":1.3")
    reply.set_body(V("(vva(yyay)a{oa{sa{sv}}}d)", (
        V("v", V("s", "deep")), V("(ib)", (1, False)),
        [(0, 0xFF, bytes([0x4C, 0x00, 0x02, 0x15])), (2, 0xFF, bytes([0xBE, 0xAC]))],
        {}, float("inf"))))
    yield "return-variants", reply

    error = Gio.DBusMessage.new_method_error_literal(call, "org.corelocation.Error.NoFix", "no fix")
    error.set_serial(9)
    yield "error-no-fix", error


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def split_messages(stream):
    """The messages of a --binary dump, each whole (fixed header, fields padded to 8, body)."""
    messages, offset = [], 0
    while offset + 16 <= len(stream):
        order = "little" if stream[offset] == ord("l") else "big"
        body = int.from_bytes(stream[offset + 4:offset + 8], order)
        fields = int.from_bytes(stream[offset + 12:offset + 16], order)
        length = 16 + (fields + 7) // 8 * 8 + body
        messages.append(stream[offset:offset + length])
        offset += length
    return messages


def libdbus_messages():
    with tempfile.TemporaryDirectory() as directory:
        config = os.path.join(directory, "bus.conf")
        with open(config, "w") as f:
            f.write(f"""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:path={directory}/bus</listen>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/>
<allow own="*"/></policy></busconfig>""")
        daemon = subprocess.Popen(["dbus-daemon", "--config-file", config, "--nofork", "--print-address=1"],
                                  stdout=subprocess.PIPE, text=True)
        address = daemon.stdout.readline().strip()
        dump = os.path.join(directory, "dump")
        with open(dump, "wb") as out:
            monitor = subprocess.Popen(["dbus-monitor", "--address", address, "--binary"], stdout=out)
            time.sleep(1)
            subprocess.run(["dbus-send", "--bus=" + address, "--type=signal", "/org/corelocation/Test",
                            "org.corelocation.Test1.Ping", "string:héllo", "int32:-5",
                            "uint64:18000000000000000000", "double:2.5", "objpath:/a/b", "byte:7", "boolean:true",
                            "array:int16:1,-2", "dict:string:int32:a,1,b,2", "variant:uint32:9"], check=True)
            subprocess.run(["dbus-send", "--bus=" + address, "--type=method_call", "--dest=org.freedesktop.DBus",
                            "/org/freedesktop/DBus", "org.freedesktop.DBus.GetNameOwner",
                            "string:org.freedesktop.DBus"], check=True)
            time.sleep(1)
            monitor.terminate()
            monitor.wait()
        daemon.terminate()
        daemon.wait()
        with open(dump, "rb") as f:
            stream = f.read()
    for message in split_messages(stream):
        if b"org.corelocation.Test1" in message:
            yield "signal-ping", message
        elif b"GetNameOwner" in message:
            yield "call-get-name-owner", message


def main():
    for name, message in glib_messages():
        # A reply inherits its call's byte order, so each message is set to little-endian first.
        message.set_byte_order(Gio.DBusMessageByteOrder.LITTLE_ENDIAN)
        write(os.path.join(HERE, "glib", name + "-le.bin"), bytes(message.to_blob(Gio.DBusCapabilityFlags.NONE)))
        message.set_byte_order(Gio.DBusMessageByteOrder.BIG_ENDIAN)
        write(os.path.join(HERE, "glib", name + "-be.bin"), bytes(message.to_blob(Gio.DBusCapabilityFlags.NONE)))
    for name, message in libdbus_messages():
        write(os.path.join(HERE, "libdbus", name + ".bin"), message)


main()
