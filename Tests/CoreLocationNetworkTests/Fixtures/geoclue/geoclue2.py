'''A small GeoClue2 service for python-dbusmock (`python3 -m dbusmock --template geoclue2.py`), for tests.

It speaks the part of GeoClue 2's D-Bus API a client uses, with its real names: the Manager
(/org/freedesktop/GeoClue2/Manager: GetClient, CreateClient, DeleteClient), Client objects
(/org/freedesktop/GeoClue2/Client/N: DesktopId, RequestedAccuracyLevel, DistanceThreshold, TimeThreshold, Active,
Location; Start, Stop; LocationUpdated(old, new)) and Location objects (Latitude, Longitude, Accuracy, Altitude,
Speed, Heading, Description, Timestamp (tt)). As GeoClue does, Start fails without a DesktopId.

Test controls on org.freedesktop.DBus.Mock at the manager:
  SetLocation(lat, lon, accuracy, altitude, speed, heading, seconds, microseconds) -> the new Location's path;
      every started client gets it (Location property, LocationUpdated), and clients started later read it at once.
  Clients() -> [(path, desktop id, requested accuracy level, active)]
'''
import dbus
import dbusmock
from dbusmock import MOCK_IFACE

BUS_NAME = 'org.freedesktop.GeoClue2'
MAIN_OBJ = '/org/freedesktop/GeoClue2/Manager'
MAIN_IFACE = 'org.freedesktop.GeoClue2.Manager'
SYSTEM_BUS = True

CLIENT_IFACE = 'org.freedesktop.GeoClue2.Client'
LOCATION_IFACE = 'org.freedesktop.GeoClue2.Location'

state = {'clients': 0, 'locations': 0, 'current': '/'}


def client_start(self):
    if not self.Get(CLIENT_IFACE, 'DesktopId'):
        raise dbus.exceptions.DBusException('DesktopId not set', name='org.freedesktop.DBus.Error.AccessDenied')
    self.Set(CLIENT_IFACE, 'Active', dbus.Boolean(True))
    if state['current'] != '/':
        deliver(self, state['current'])


def client_stop(self):
    self.Set(CLIENT_IFACE, 'Active', dbus.Boolean(False))


def deliver(client, location):
    old = client.Get(CLIENT_IFACE, 'Location')
    client.Set(CLIENT_IFACE, 'Location', dbus.ObjectPath(location))
    client.EmitSignal(CLIENT_IFACE, 'LocationUpdated', 'oo', [dbus.ObjectPath(old), dbus.ObjectPath(location)])


def make_client(self):
    state['clients'] += 1
    path = '/org/freedesktop/GeoClue2/Client/%d' % state['clients']
    self.AddObject(path, CLIENT_IFACE, {
        'Location': dbus.ObjectPath('/'),
        'DistanceThreshold': dbus.UInt32(0),
        'TimeThreshold': dbus.UInt32(0),
        'DesktopId': dbus.String(''),
        'RequestedAccuracyLevel': dbus.UInt32(0),
        'Active': dbus.Boolean(False),
    }, [
        ('Start', '', '', client_start),
        ('Stop', '', '', client_stop),
    ])
    return dbus.ObjectPath(path)


def load(mock, parameters):
    mock.AddProperties(MAIN_IFACE, {'InUse': dbus.Boolean(False), 'AvailableAccuracyLevel': dbus.UInt32(8)})
    mock.AddMethods(MAIN_IFACE, [
        ('GetClient', '', 'o', make_client),
        ('CreateClient', '', 'o', make_client),
        ('DeleteClient', 'o', '', lambda self, path: self.RemoveObject(path)),
        ('AddAgent', 's', '', lambda self, agent: None),
    ])


@dbus.service.method(MOCK_IFACE, in_signature='ddddddtt', out_signature='o')
def SetLocation(self, latitude, longitude, accuracy, altitude, speed, heading, seconds, microseconds):
    state['locations'] += 1
    path = '/org/freedesktop/GeoClue2/Location/%d' % state['locations']
    self.AddObject(path, LOCATION_IFACE, {
        'Latitude': dbus.Double(latitude),
        'Longitude': dbus.Double(longitude),
        'Accuracy': dbus.Double(accuracy),
        'Altitude': dbus.Double(altitude),
        'Speed': dbus.Double(speed),
        'Heading': dbus.Double(heading),
        'Description': dbus.String('mock'),
        'Timestamp': dbus.Struct((dbus.UInt64(seconds), dbus.UInt64(microseconds)), signature='tt'),
    }, [])
    state['current'] = path
    for client_path in list(dbusmock.get_objects()):
        if not client_path.startswith('/org/freedesktop/GeoClue2/Client/'):
            continue
        client = dbusmock.get_object(client_path)
        if client.Get(CLIENT_IFACE, 'Active'):
            deliver(client, path)
    return dbus.ObjectPath(path)


@dbus.service.method(MOCK_IFACE, in_signature='', out_signature='a(osub)')
def Clients(self):
    found = []
    for client_path in sorted(dbusmock.get_objects()):
        if client_path.startswith('/org/freedesktop/GeoClue2/Client/'):
            client = dbusmock.get_object(client_path)
            found.append((dbus.ObjectPath(client_path), client.Get(CLIENT_IFACE, 'DesktopId'),
                          client.Get(CLIENT_IFACE, 'RequestedAccuracyLevel'), client.Get(CLIENT_IFACE, 'Active')))
    return found
