#!/usr/bin/python3
"""A GeoClue agent for the benchmark (GeoClue serves a user's clients only once an agent of that user registered):
exports org.freedesktop.GeoClue2.Agent at /org/freedesktop/GeoClue2/Agent, authorises every app at the level it asks,
registers with Manager.AddAgent(ID), prints "READY", and serves until killed. Bus: DBUS_SYSTEM_BUS_ADDRESS."""
import os
import sys

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

AGENT_IFACE = "org.freedesktop.GeoClue2.Agent"


class Agent(dbus.service.Object):
    @dbus.service.method(AGENT_IFACE, in_signature="su", out_signature="bu")
    def AuthorizeApp(self, desktop_id, level):
        return True, level

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        return self.GetAll(interface)[name]

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        return {"MaxAccuracyLevel": dbus.UInt32(8)}


dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.bus.BusConnection(os.environ["DBUS_SYSTEM_BUS_ADDRESS"])
agent = Agent(bus, "/org/freedesktop/GeoClue2/Agent")
manager = bus.get_object("org.freedesktop.GeoClue2", "/org/freedesktop/GeoClue2/Manager")
loop = GLib.MainLoop()


def registered():
    print("READY", flush=True)


def failed(error):
    print("FAILED", error, flush=True)
    loop.quit()


manager.AddAgent(sys.argv[1], dbus_interface="org.freedesktop.GeoClue2.Manager", reply_handler=registered,
                 error_handler=failed)
loop.run()
