#!/usr/bin/env python3
"""Drives python-dbusmock's `modemmanager` template (python-dbusmock >= 0.38) for the ModemManager tests.

The template's AddSimpleModem gives a modem without the Location interface; this script adds one, as
ModemManager exposes it (org.freedesktop.ModemManager1.Modem.Location: Capabilities, Enabled, SignalsLocation,
Location a{uv}, GpsRefreshRate; Setup(ub), GetLocation() -> a{uv}), and feeds it.

  driver.py add [--capabilities N] [--no-location] [--refuse] [--quiet] [--state N]   -> prints the modem path
      --refuse: Setup answers org.freedesktop.ModemManager1.Error.Core.Unauthorized (polkit said no)
      --quiet:  Setup leaves SignalsLocation false and location changes emit nothing (clients must poll GetLocation)
  driver.py cell MODEM "MCC,MNC,LAC,CI,TAC"     the 3GPP entry of Location
  driver.py nmea MODEM FILE                     the NMEA entry, one update per epoch of FILE (comments skipped)
  driver.py raw MODEM JSON                      the GPS_RAW entry (a{sv}) from a JSON object: strings stay strings,
                                                numbers with a point (and "nan") are doubles, whole numbers int32
                                                (a wrong type on purpose), a JSON string "!x" is not a dictionary
  driver.py state MODEM N                       the modem's State
  driver.py remove MODEM                        the modem goes (InterfacesRemoved)

Uses DBUS_SYSTEM_BUS_ADDRESS (the tests' private bus). dbus-python only.
"""
import json
import sys

import dbus

BUS = "org.freedesktop.ModemManager1"
MANAGER = "/org/freedesktop/ModemManager1"
MOCK = "org.freedesktop.DBus.Mock"
MODEM = "org.freedesktop.ModemManager1.Modem"
LOCATION = "org.freedesktop.ModemManager1.Modem.Location"
OBJECT_MANAGER = "org.freedesktop.DBus.ObjectManager"
GPS_NMEA = 4
GPS_RAW = 2
THREE_GPP = 1

bus = dbus.SystemBus()


def mock(path):
    return dbus.Interface(bus.get_object(BUS, path), MOCK)


def add(options):
    modem_path, _ = mock(MANAGER).AddSimpleModem()
    modem = mock(modem_path)
    if "--state" in options:
        state = int(options[options.index("--state") + 1])
        modem.UpdateProperties(MODEM, {"State": dbus.Int32(state)})
    if "--no-location" not in options:
        capabilities = 7
        if "--capabilities" in options:
            capabilities = int(options[options.index("--capabilities") + 1])
        quiet = "--quiet" in options
        properties = dbus.Dictionary({
            "Capabilities": dbus.UInt32(capabilities),
            "SupportedAssistanceData": dbus.UInt32(0),
            "Enabled": dbus.UInt32(0),
            "SignalsLocation": dbus.Boolean(False),
            "Location": dbus.Dictionary({}, signature="uv"),
            "GpsRefreshRate": dbus.UInt32(30),
        }, signature="sv")
        modem.AddProperties(LOCATION, properties)
        setup = ""
        if "--refuse" in options:
            setup = ("raise dbus.exceptions.DBusException('Not authorized to set up location', "
                     "name='org.freedesktop.ModemManager1.Error.Core.Unauthorized')\n")
        setup += ("self.UpdateProperties('%s', {'Enabled': dbus.UInt32(args[0]), "
                  "'SignalsLocation': dbus.Boolean(%s)})\n" % (LOCATION, "False" if quiet else "args[1]"))
        get = "ret = getattr(self, 'quiet_location', None) or self.Get('%s', 'Location')" % LOCATION
        modem.AddMethods(LOCATION, [("Setup", "ub", "", setup), ("GetLocation", "", "a{uv}", get)])
        modem.AddMethod("org.corelocation.Test", "SetQuietLocation", "a{uv}", "", "self.quiet_location = args[0]")
        modem.AddProperty("org.corelocation.Test", "Quiet", dbus.Boolean(quiet))
        mock(MANAGER).EmitSignal(OBJECT_MANAGER, "InterfacesAdded", "oa{sa{sv}}",
                                 [dbus.ObjectPath(modem_path), dbus.Dictionary({LOCATION: properties}, signature="sa{sv}")])
    print(modem_path)


def raw_value(text):
    value = json.loads(text, parse_float=float, parse_constant=float)
    if isinstance(value, str):
        return dbus.String(value, variant_level=1)
    entries = {}
    for key, item in value.items():
        if isinstance(item, str) and item.lower() == "nan":
            entries[key] = dbus.Double(float("nan"), variant_level=1)
        elif isinstance(item, str):
            entries[key] = dbus.String(item, variant_level=1)
        elif isinstance(item, float):
            entries[key] = dbus.Double(item, variant_level=1)
        else:
            entries[key] = dbus.Int32(item, variant_level=1)
    return dbus.Dictionary(entries, signature="sv", variant_level=1)


def set_location(path, key, value):
    if not isinstance(value, dbus.String) and not isinstance(value, dbus.Dictionary):
        value = dbus.String(value, variant_level=1)
    location = dbus.Dictionary({dbus.UInt32(key): value}, signature="uv")
    obj = bus.get_object(BUS, path)
    quiet = bool(dbus.Interface(obj, "org.freedesktop.DBus.Properties").Get("org.corelocation.Test", "Quiet"))
    if quiet:
        dbus.Interface(obj, "org.corelocation.Test").SetQuietLocation(location)
    else:
        mock(path).UpdateProperties(LOCATION, {"Location": location})


def epochs(lines):
    """Groups NMEA lines into epochs: a sentence with a UTC time other than the current epoch's starts a new one."""
    current, time, out = [], None, []
    for line in lines:
        kind = line[3:6]
        if kind in ("GGA", "RMC", "GLL", "GNS", "GST", "ZDA"):
            fields = line.split(",")
            stamp = fields[5] if kind == "GLL" and len(fields) > 5 else fields[1]
            if time is not None and stamp != time and current:
                out.append(current)
                current = []
            time = stamp
        current.append(line)
    if current:
        out.append(current)
    return out


def main():
    command = sys.argv[1]
    if command == "add":
        add(sys.argv[2:])
    elif command == "cell":
        set_location(sys.argv[2], THREE_GPP, sys.argv[3])
    elif command == "raw":
        set_location(sys.argv[2], GPS_RAW, raw_value(sys.argv[3]))
    elif command == "nmea":
        lines = [l.strip() for l in open(sys.argv[3]) if l.strip() and not l.startswith("#")]
        for epoch in epochs(lines):
            set_location(sys.argv[2], GPS_NMEA, "\r\n".join(epoch))
    elif command == "state":
        mock(sys.argv[2]).UpdateProperties(MODEM, {"State": dbus.Int32(int(sys.argv[3]))})
    elif command == "remove":
        mock(MANAGER).RemoveObject(sys.argv[2])
        mock(MANAGER).EmitSignal(OBJECT_MANAGER, "InterfacesRemoved", "oas",
                                 [dbus.ObjectPath(sys.argv[2]), dbus.Array([MODEM, LOCATION], signature="s")])
    else:
        sys.exit("unknown command " + command)


main()
