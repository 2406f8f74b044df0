#!/usr/bin/python3
"""A GLib (GDBus) peer for DBusServiceTests: an implementation of D-Bus that is not ours, on the test's bus.

  glib_peer.py ADDRESS listen SENDER COUNT   print "ready NAME", then each signal from SENDER as
                                             "MEMBER PATH DESTINATION-OR-* GLIB-TEXT" (GVariant.print_ with types),
                                             until COUNT came (120 s at most: a bound for a
                                             broken test, not a window — a full parallel run can keep
                                             the test process from emitting for tens of seconds)
  glib_peer.py ADDRESS big-endian DEST PATH  call org.corelocation.Calc1.Echo on DEST at PATH and send the signal
                                             org.corelocation.BE1.Hello to DEST, both big-endian; print the reply
Run with Debian's python3 (python3-gi).
"""
import sys

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

address, command = sys.argv[1], sys.argv[2]
flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
connection = Gio.DBusConnection.new_for_address_sync(address, flags, None, None)

if command == "listen":
    sender, count = sys.argv[3], int(sys.argv[4])
    loop = GLib.MainLoop()
    seen = []

    def on_signal(_connection, _sender, path, _interface, member, parameters):
        seen.append(f"{member} {path} {parameters.print_(True)}")
        print(seen[-1], flush=True)
        if len(seen) >= count:
            loop.quit()

    connection.signal_subscribe(sender, None, None, None, None, Gio.DBusSignalFlags.NONE, on_signal)
    # The match rule is in place once a round trip to the bus has returned.
    connection.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId",
                         None, None, Gio.DBusCallFlags.NONE, -1, None)
    print("ready", connection.get_unique_name(), flush=True)
    GLib.timeout_add_seconds(120, loop.quit)
    loop.run()
elif command == "big-endian":
    destination, path = sys.argv[3], sys.argv[4]
    call = Gio.DBusMessage.new_method_call(destination, path, "org.corelocation.Calc1", "Echo")
    call.set_body(GLib.Variant("(saxa{sv}d)", ("grüß", [1, -2, 1 << 40], {"k": GLib.Variant("q", 513)}, 0.1)))
    call.set_byte_order(Gio.DBusMessageByteOrder.BIG_ENDIAN)
    reply, _ = connection.send_message_with_reply_sync(call, Gio.DBusSendMessageFlags.NONE, 120000, None)
    reply.to_gerror()
    print("reply", reply.get_byte_order().value_nick, reply.get_body().print_(True), flush=True)
    signal = Gio.DBusMessage.new_signal("/org/corelocation/BE", "org.corelocation.BE1", "Hello")
    signal.set_destination(destination)
    signal.set_body(GLib.Variant("(say)", ("big", b"\x01\x02")))
    signal.set_byte_order(Gio.DBusMessageByteOrder.BIG_ENDIAN)
    connection.send_message(signal, Gio.DBusSendMessageFlags.NONE)
    connection.flush_sync(None)
    print("sent", flush=True)
