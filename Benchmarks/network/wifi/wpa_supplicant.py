'''A wpa_supplicant mock for python-dbusmock (`python3 -m dbusmock --template wpa_supplicant.py`): the part of
fi.w1.wpa_supplicant1 GeoClue's Wi-Fi source reads (Interfaces; an interface's Ifname, BSSs, Scan, BSSAdded,
BSSRemoved, ScanDone; a BSS's BSSID, SSID, Signal, Frequency). The benchmark adds and removes BSSs and says when a
scan is done (Scan itself only answers: the scan completes when the driver says so, as a real one completes when
the radio has listened).

Controls on org.freedesktop.DBus.Mock at /fi/w1/wpa_supplicant1:
  AddBSS(name, bssid "aa:bb:..", ssid, signal dBm, frequency) -> path;  RemoveBSS(path);  ScanDone()
'''
import dbus
import dbusmock
from dbusmock import MOCK_IFACE

BUS_NAME = 'fi.w1.wpa_supplicant1'
MAIN_OBJ = '/fi/w1/wpa_supplicant1'
MAIN_IFACE = 'fi.w1.wpa_supplicant1'
SYSTEM_BUS = True

IFACE = 'fi.w1.wpa_supplicant1.Interface'
BSS_IFACE = 'fi.w1.wpa_supplicant1.BSS'
INTERFACE_PATH = '/fi/w1/wpa_supplicant1/Interfaces/0'


def load(mock, parameters):
    mock.AddProperties(MAIN_IFACE, {'Interfaces': dbus.Array([dbus.ObjectPath(INTERFACE_PATH)], signature='o')})
    mock.AddObject(INTERFACE_PATH, IFACE, {
        'Ifname': dbus.String('wlan0'),
        'State': dbus.String('completed'),
        'Scanning': dbus.Boolean(False),
        'BSSs': dbus.Array([], signature='o'),
    }, [('Scan', 'a{sv}', '', lambda self, args: None)])


@dbus.service.method(MOCK_IFACE, in_signature='sssin', out_signature='o')
def AddBSS(self, name, bssid, ssid, signal, frequency):
    path = INTERFACE_PATH + '/BSSs/' + name
    self.AddObject(path, BSS_IFACE, {
        'BSSID': dbus.ByteArray(bytes(int(x, 16) for x in bssid.split(':'))),
        'SSID': dbus.ByteArray(ssid.encode()),
        'Signal': dbus.Int16(signal),
        'Frequency': dbus.UInt16(frequency),
        'Mode': dbus.String('infrastructure'),
        'Age': dbus.UInt32(0),
    }, [])
    interface = dbusmock.get_object(INTERFACE_PATH)
    bsss = list(interface.Get(IFACE, 'BSSs')) + [dbus.ObjectPath(path)]
    interface.Set(IFACE, 'BSSs', dbus.Array(bsss, signature='o'))
    interface.EmitSignal(IFACE, 'BSSAdded', 'oa{sv}', [dbus.ObjectPath(path), dbus.Dictionary({}, signature='sv')])
    return dbus.ObjectPath(path)


@dbus.service.method(MOCK_IFACE, in_signature='o', out_signature='')
def RemoveBSS(self, path):
    interface = dbusmock.get_object(INTERFACE_PATH)
    bsss = [p for p in interface.Get(IFACE, 'BSSs') if p != path]
    interface.Set(IFACE, 'BSSs', dbus.Array(bsss, signature='o'))
    interface.EmitSignal(IFACE, 'BSSRemoved', 'o', [dbus.ObjectPath(path)])
    self.RemoveObject(path)


@dbus.service.method(MOCK_IFACE, in_signature='', out_signature='')
def ScanDone(self):
    dbusmock.get_object(INTERFACE_PATH).EmitSignal(IFACE, 'ScanDone', 'b', [dbus.Boolean(True)])
