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
  monitor-adapter NAME [fail] [TYPE]...
                                    add an adapter that also offers org.bluez.AdvertisementMonitorManager1
                                    (SupportedMonitorTypes TYPE..., default or_patterns), in one mock call so
                                    a client never sees the adapter without it; `fail`: RegisterMonitor fails
  monitors NAME                     print the roots registered with the adapter's monitor manager and the
                                    RegisterMonitor / UnregisterMonitor counts
  activate NAME CLIENT              as bluetoothd does after RegisterMonitor: read each registered root's
                                    GetManagedObjects from CLIENT (a unique name), print every monitor (type,
                                    patterns start:type:hex, RSSISamplingPeriod), call its Activate
  monitor-call NAME CLIENT METHOD [ADDRESS]
                                    call Release, DeviceFound or DeviceLost (the device's path) on CLIENT's
                                    monitors; prints `ok` or the D-Bus error name

The mock's RegisterMonitor cannot see its caller (dbusmock gives method code no sender), so the test passes
its client's unique name to `activate` and `monitor-call` instead of the mock calling back by itself.
"""
import sys

import dbus

BUS_NAME = 'org.bluez'
MOCK = 'org.freedesktop.DBus.Mock'
ADAPTER = 'org.bluez.Adapter1'
DEVICE = 'org.bluez.Device1'
MONITOR_MANAGER = 'org.bluez.AdvertisementMonitorManager1'
MONITOR = 'org.bluez.AdvertisementMonitor1'
RECORD = 'org.corelocation.MockMonitorRecord'
DRIVER = 'org.corelocation.MockDriver'

# Runs inside the mock (dbusmock's method code: `self` the root object, `args`, mockobject's globals).
ADD_MONITOR_ADAPTER = '''
path = self.AddAdapter(args[0], 'corelocation-test')
adapter = objects[path]
adapter.AddProperties('org.bluez.AdvertisementMonitorManager1', {
    'SupportedMonitorTypes': dbus.Array(args[1], signature='s'),
    'SupportedFeatures': dbus.Array([], signature='s')})
adapter.AddProperties('org.corelocation.MockMonitorRecord', {
    'Roots': dbus.Array([], signature='s'), 'Registered': dbus.UInt32(0), 'Unregistered': dbus.UInt32(0),
    'Fail': dbus.Boolean(args[2])})
adapter.AddMethods('org.bluez.AdvertisementMonitorManager1', [
    ('RegisterMonitor', 'o', '', REGISTER), ('UnregisterMonitor', 'o', '', UNREGISTER)])
ret = path
'''
REGISTER = '''
record = self.props['org.corelocation.MockMonitorRecord']
if record['Fail']:
    raise dbus.exceptions.DBusException('no monitor for you', name='org.bluez.Error.Failed')
if str(args[0]) in [str(root) for root in record['Roots']]:
    raise dbus.exceptions.DBusException('registered', name='org.bluez.Error.AlreadyExists')
record['Roots'] = dbus.Array(list(record['Roots']) + [str(args[0])], signature='s')
record['Registered'] = dbus.UInt32(record['Registered'] + 1)
'''
UNREGISTER = '''
record = self.props['org.corelocation.MockMonitorRecord']
roots = [str(root) for root in record['Roots']]
if str(args[0]) not in roots:
    raise dbus.exceptions.DBusException('not registered', name='org.bluez.Error.DoesNotExist')
roots.remove(str(args[0]))
record['Roots'] = dbus.Array(roots, signature='s')
record['Unregistered'] = dbus.UInt32(record['Unregistered'] + 1)
'''


def registered_roots(bus, name):
    props = dbus.Interface(bus.get_object(BUS_NAME, '/org/bluez/' + name), dbus.PROPERTIES_IFACE)
    return [str(root) for root in props.Get(RECORD, 'Roots')]


def client_monitors(bus, name, client):
    """The monitor objects under each root registered with the adapter: (path, properties)."""
    found = []
    for root in registered_roots(bus, name):
        manager = dbus.Interface(bus.get_object(client, root, introspect=False), 'org.freedesktop.DBus.ObjectManager')
        for path, interfaces in sorted(manager.GetManagedObjects().items()):
            if MONITOR in interfaces:
                found.append((str(path), interfaces[MONITOR]))
    return found


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
    elif command == 'monitor-adapter':
        rest = words[2:]
        fail = bool(rest) and rest[0] == 'fail'
        types = rest[1:] if fail else rest
        driver = dbus.Interface(bus.get_object(BUS_NAME, '/'), MOCK)
        driver.AddMethod(DRIVER, 'AddMonitorAdapter', 'sasb', 's',
                         'REGISTER = %r\nUNREGISTER = %r\n%s' % (REGISTER, UNREGISTER, ADD_MONITOR_ADAPTER))
        adder = dbus.Interface(bus.get_object(BUS_NAME, '/'), DRIVER)
        print(adder.AddMonitorAdapter(words[1], dbus.Array(types or ['or_patterns'], signature='s'), fail))
    elif command == 'monitors':
        props = dbus.Interface(bus.get_object(BUS_NAME, '/org/bluez/' + words[1]), dbus.PROPERTIES_IFACE)
        record = props.GetAll(RECORD)
        print('roots', ','.join(str(root) for root in record['Roots']) or 'none',
              'registered', int(record['Registered']), 'unregistered', int(record['Unregistered']))
    elif command == 'activate':
        for path, props in client_monitors(bus, words[1], words[2]):
            patterns = ';'.join('%d:%02x:%s' % (int(start), int(kind), bytes(int(b) for b in content).hex())
                                for start, kind, content in props.get('Patterns', []))
            print('monitor', path, 'type', str(props.get('Type')), 'patterns', patterns,
                  'sampling', int(props.get('RSSISamplingPeriod', -1)))
            dbus.Interface(bus.get_object(words[2], path, introspect=False), MONITOR).Activate()
    elif command == 'monitor-call':
        name, client, method = words[1], words[2], words[3]
        arguments = [dbus.ObjectPath(device_path(name, words[4]))] if len(words) > 4 else []
        for path, _ in client_monitors(bus, name, client):
            monitor = dbus.Interface(bus.get_object(client, path, introspect=False), MONITOR)
            try:
                getattr(monitor, method)(*arguments)
                print('ok')
            except dbus.exceptions.DBusException as error:
                print(error.get_dbus_name())
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
