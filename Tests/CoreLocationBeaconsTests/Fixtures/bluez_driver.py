#!/usr/bin/python3
"""Drives python-dbusmock's bluez5 template on the bus in DBUS_SYSTEM_BUS_ADDRESS (BlueZScannerTests).

Commands, several per run separated by `--`:
  adapter NAME                      add an adapter (/org/bluez/NAME, powered)
  power NAME on|off                 set the adapter's Powered (PropertiesChanged)
  remove-adapter NAME               remove the adapter and its devices
  device NAME ADDRESS               add a device under the adapter
  advert NAME ADDRESS RSSI [m COMPANY_HEX DATA_HEX]... [s UUID DATA_HEX]...
                                    one advertisement: RSSI, ManufacturerData, ServiceData (PropertiesChanged)
  filter NAME                       print the adapter's DiscoveryFilter and Discovering
"""
import sys

import dbus

BUS_NAME = 'org.bluez'
MOCK = 'org.freedesktop.DBus.Mock'
ADAPTER = 'org.bluez.Adapter1'
DEVICE = 'org.bluez.Device1'


def device_path(name, address):
    return '/org/bluez/%s/dev_%s' % (name, address.replace(':', '_').upper())


def run(bus, words):
    root = dbus.Interface(bus.get_object(BUS_NAME, '/'), 'org.bluez.Mock')
    command = words[0]
    if command == 'adapter':
        print(root.AddAdapter(words[1], 'corelocation-test'))
    elif command == 'power':
        adapter = dbus.Interface(bus.get_object(BUS_NAME, '/org/bluez/' + words[1]), MOCK)
        adapter.UpdateProperties(ADAPTER, {'Powered': dbus.Boolean(words[2] == 'on')})
    elif command == 'remove-adapter':
        root.RemoveAdapterWithDevices(words[1])
    elif command == 'device':
        print(root.AddDevice(words[1], words[2], 'beacon'))
    elif command == 'advert':
        name, address, rssi = words[1], words[2], int(words[3])
        properties = {'RSSI': dbus.Int16(rssi)}
        manufacturer, service = {}, {}
        rest = words[4:]
        while rest:
            kind, key, data = rest[0], rest[1], rest[2]
            rest = rest[3:]
            value = dbus.Array(bytearray.fromhex(data), signature='y')
            if kind == 'm':
                manufacturer[dbus.UInt16(int(key, 16))] = value
            else:
                service[dbus.String(key)] = value
        if manufacturer:
            properties['ManufacturerData'] = dbus.Dictionary(manufacturer, signature='qv')
        if service:
            properties['ServiceData'] = dbus.Dictionary(service, signature='sv')
        # Emitted directly: dbusmock 0.28.7's UpdateProperties cannot wrap a dictionary (a{qv}) in a variant.
        device = dbus.Interface(bus.get_object(BUS_NAME, device_path(name, address)), MOCK)
        device.EmitSignal(dbus.PROPERTIES_IFACE, 'PropertiesChanged', 'sa{sv}as',
                          [DEVICE, dbus.Dictionary(properties, signature='sv'), dbus.Array([], signature='s')])
    elif command == 'filter':
        props = dbus.Interface(bus.get_object(BUS_NAME, '/org/bluez/' + words[1]), dbus.PROPERTIES_IFACE)
        try:
            found = props.Get(ADAPTER, 'DiscoveryFilter')
            shown = ','.join('%s=%s' % (key, found[key]) for key in sorted(found))
        except dbus.exceptions.DBusException:
            shown = 'none'
        print('filter', shown, 'discovering', bool(props.Get(ADAPTER, 'Discovering')))
    else:
        raise SystemExit('unknown command ' + command)


def main():
    bus = dbus.SystemBus()
    command = []
    for word in sys.argv[1:] + ['--']:
        if word == '--':
            if command:
                run(bus, command)
            command = []
        else:
            command.append(word)


if __name__ == '__main__':
    main()
