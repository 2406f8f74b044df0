#!/usr/bin/python3
"""A second real GeoClue2 client (GLib's GDBus through GObject introspection, Debian python3-gi), and a test
agent, for Tests/LocationdTests/GeoClueServiceTests.swift. Speaks to DBUS_SYSTEM_BUS_ADDRESS. One line of
output per event, flushed, so the test reads them as they come.

  updates N [D T]    GetClient (DistanceThreshold D m, TimeThreshold T s), Start, N LocationUpdated (each printed with the Location's properties), Stop,
                     then counts what still arrives in 2 s ("after-stop K")
  run SECONDS        Start and print every update and every change of Active for SECONDS (a deny stops it)
  flood N            CreateClient N times; prints how many were made and each distinct error
  badinput           wrong types, another caller's client, unknown objects: prints each error name
  startmany N        Start one client N times, then leave during one more Start
  agent OK LEVEL     registers a GeoClue agent answering AuthorizeApp with (OK, LEVEL); prints each question
"""
import signal
import sys

from gi.repository import Gio, GLib

# The test runner's children inherit its signal mask, SIGTERM blocked (ChildProcess): this peer ends when the test
# stops it.
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})

NAME = "org.freedesktop.GeoClue2"
MANAGER = "/org/freedesktop/GeoClue2/Manager"
IFACE_MANAGER = "org.freedesktop.GeoClue2.Manager"
IFACE_CLIENT = "org.freedesktop.GeoClue2.Client"
IFACE_LOCATION = "org.freedesktop.GeoClue2.Location"
PROPS = "org.freedesktop.DBus.Properties"


def say(*words):
    print(*words, flush=True)


def bus():
    return Gio.bus_get_sync(Gio.BusType.SYSTEM, None)


def call(connection, path, interface, member, args=None, reply="()"):
    return connection.call_sync(NAME, path, interface, member, args, GLib.VariantType(reply),
                                Gio.DBusCallFlags.NONE, 10000, None)


def error_name(error):
    return Gio.DBusError.get_remote_error(error) or str(error)


def set_prop(connection, path, name, value):
    call(connection, path, PROPS, "Set", GLib.Variant("(ssv)", (IFACE_CLIENT, name, value)))


def location(connection, path):
    values = call(connection, path, PROPS, "GetAll", GLib.Variant("(s)", (IFACE_LOCATION,)), "(a{sv})")[0]
    return values


def new_client(connection, accuracy=8, distance=0, seconds=0):
    path = call(connection, MANAGER, IFACE_MANAGER, "GetClient", None, "(o)")[0]
    set_prop(connection, path, "DesktopId", GLib.Variant("s", "geoclue-peer"))
    set_prop(connection, path, "RequestedAccuracyLevel", GLib.Variant("u", accuracy))
    set_prop(connection, path, "DistanceThreshold", GLib.Variant("u", distance))
    set_prop(connection, path, "TimeThreshold", GLib.Variant("u", seconds))
    return path


def updates(count, distance=0, seconds=0):
    connection = bus()
    path = new_client(connection, distance=distance, seconds=seconds)
    loop = GLib.MainLoop()
    state = {"seen": 0, "stopped": False, "after": 0}

    def on_update(_c, _s, _p, _i, _m, parameters):
        old, new = parameters.unpack()
        if state["stopped"]:
            state["after"] += 1
            return
        values = location(connection, new)
        state["seen"] += 1
        say("update", old, new, "%.7f" % values["Latitude"], "%.7f" % values["Longitude"],
            "%.1f" % values["Accuracy"], "%d.%06d" % values["Timestamp"])
        if state["seen"] == count:
            call(connection, path, IFACE_CLIENT, "Stop")
            state["stopped"] = True
            active = call(connection, path, PROPS, "Get", GLib.Variant("(ss)", (IFACE_CLIENT, "Active")), "(v)")[0]
            say("stopped active", str(active).lower())
            GLib.timeout_add(2000, loop.quit)

    connection.signal_subscribe(NAME, IFACE_CLIENT, "LocationUpdated", path, None, Gio.DBusSignalFlags.NONE,
                                on_update)
    call(connection, path, IFACE_CLIENT, "Start")
    say("started", path)
    GLib.timeout_add(30000, loop.quit)
    loop.run()
    say("after-stop", state["after"])


def run(seconds):
    connection = bus()
    path = new_client(connection)
    loop = GLib.MainLoop()

    def on_update(_c, _s, _p, _i, _m, parameters):
        _old, new = parameters.unpack()
        values = location(connection, new)
        say("update", "%.6f" % values["Latitude"], "%.6f" % values["Longitude"], "%.1f" % values["Accuracy"])

    def on_changed(_c, _s, _p, _i, _m, parameters):
        interface, changed, _ = parameters.unpack()
        if interface == IFACE_CLIENT and "Active" in changed:
            say("active", str(changed["Active"]).lower())

    connection.signal_subscribe(NAME, IFACE_CLIENT, "LocationUpdated", path, None, Gio.DBusSignalFlags.NONE,
                                on_update)
    connection.signal_subscribe(NAME, PROPS, "PropertiesChanged", path, None, Gio.DBusSignalFlags.NONE, on_changed)
    try:
        call(connection, path, IFACE_CLIENT, "Start")
        say("started", path)
    except GLib.Error as error:
        say("start-error", error_name(error))
        return
    GLib.timeout_add(int(seconds * 1000), loop.quit)
    loop.run()
    say("done")


def flood(count):
    connection = bus()
    made = 0
    errors = {}
    for _ in range(count):
        try:
            call(connection, MANAGER, IFACE_MANAGER, "CreateClient", None, "(o)")
            made += 1
        except GLib.Error as error:
            name = error_name(error)
            errors[name] = errors.get(name, 0) + 1
    say("made", made)
    for name, number in sorted(errors.items()):
        say("error", name, number)
    # Still answered after the flood.
    say("inuse", str(call(connection, MANAGER, PROPS, "Get", GLib.Variant("(ss)", (IFACE_MANAGER, "InUse")),
                          "(v)")[0]).lower())


def badinput():
    connection = bus()
    path = new_client(connection)
    tries = [
        ("set-wrong-type", lambda: set_prop(connection, path, "TimeThreshold", GLib.Variant("s", "soon"))),
        ("set-read-only", lambda: call(connection, path, PROPS, "Set",
                                       GLib.Variant("(ssv)", (IFACE_CLIENT, "Active", GLib.Variant("b", True))))),
        ("delete-wrong-type", lambda: call(connection, MANAGER, IFACE_MANAGER, "DeleteClient",
                                           GLib.Variant("(s)", ("x",)))),
        ("start-unknown", lambda: call(connection, "/org/freedesktop/GeoClue2/Client/999999", IFACE_CLIENT, "Start")),
        ("unknown-method", lambda: call(connection, MANAGER, IFACE_MANAGER, "Explode")),
    ]
    other = Gio.DBusConnection.new_for_address_sync(
        Gio.dbus_address_get_for_bus_sync(Gio.BusType.SYSTEM, None),
        Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
    tries += [
        ("start-others", lambda: other.call_sync(NAME, path, IFACE_CLIENT, "Start", None, None,
                                                 Gio.DBusCallFlags.NONE, 10000, None)),
        ("read-others-client", lambda: other.call_sync(NAME, path, PROPS, "Get",
                                                       GLib.Variant("(ss)", (IFACE_CLIENT, "Active")), None,
                                                       Gio.DBusCallFlags.NONE, 10000, None)),
        ("delete-others", lambda: other.call_sync(NAME, MANAGER, IFACE_MANAGER, "DeleteClient",
                                                  GLib.Variant("(o)", (path,)), None, Gio.DBusCallFlags.NONE, 10000,
                                                  None)),
    ]
    for label, attempt in tries:
        try:
            attempt()
            say(label, "ok")
        except GLib.Error as error:
            say(label, error_name(error))
    threshold = call(connection, path, PROPS, "Get", GLib.Variant("(ss)", (IFACE_CLIENT, "TimeThreshold")), "(v)")[0]
    say("threshold", threshold)


def startmany(count):
    """Start on one client COUNT times, then leave in the middle of a last Start (sent, not waited for)."""
    connection = bus()
    path = new_client(connection)
    errors = 0
    for _ in range(count):
        try:
            call(connection, path, IFACE_CLIENT, "Start")
        except GLib.Error:
            errors += 1
    say("started", count, "errors", errors)
    connection.call(NAME, path, IFACE_CLIENT, "Start", None, None, Gio.DBusCallFlags.NONE, 10000, None, None)
    connection.flush_sync(None)
    connection.close_sync(None)
    say("left")


AGENT_XML = """
<node><interface name="org.freedesktop.GeoClue2.Agent">
  <method name="AuthorizeApp">
    <arg name="desktop_id" type="s" direction="in"/><arg name="req_accuracy_level" type="u" direction="in"/>
    <arg name="authorized" type="b" direction="out"/><arg name="allowed_accuracy_level" type="u" direction="out"/>
  </method>
  <property name="MaxAccuracyLevel" type="u" access="read"/>
</interface></node>
"""


def agent(authorized, level):
    connection = bus()
    info = Gio.DBusNodeInfo.new_for_xml(AGENT_XML).interfaces[0]

    def on_call(_c, _sender, _path, _iface, method, parameters, invocation):
        desktop, requested = parameters.unpack()
        say("asked", desktop, requested)
        invocation.return_value(GLib.Variant("(bu)", (authorized, level)))

    def on_get(_c, _sender, _path, _iface, _name):
        return GLib.Variant("u", level)

    connection.register_object("/org/freedesktop/GeoClue2/Agent", info, on_call, on_get, None)
    call(connection, MANAGER, IFACE_MANAGER, "AddAgent", GLib.Variant("(s)", ("geoclue-test-agent",)))
    say("registered")
    loop = GLib.MainLoop()
    # Never outlives its test: ends with the bus, or after two minutes whatever happens.
    connection.connect("closed", lambda *_: loop.quit())
    GLib.timeout_add_seconds(120, loop.quit)
    loop.run()


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "updates":
        updates(int(sys.argv[2]), *(int(x) for x in sys.argv[3:5]))
    elif command == "run":
        run(float(sys.argv[2]))
    elif command == "flood":
        flood(int(sys.argv[2]))
    elif command == "badinput":
        badinput()
    elif command == "startmany":
        startmany(int(sys.argv[2]))
    elif command == "agent":
        agent(sys.argv[2] == "true", int(sys.argv[3]))
