import CoreLocationDBus

/// What BlueZ last said about one `org.bluez.Device1` object: address, advertising data and RSSI.
struct BlueZDevice: Sendable, Hashable {
    var address = ""
    var manufacturerData: [UInt16: [UInt8]] = [:]
    var serviceData: [String: [UInt8]] = [:]
    var rssi: Int?

    /// Merges changed properties; true when one of them was advertising data or RSSI (a fresh advertisement).
    mutating func merge(_ properties: [String: DBusValue]) -> Bool {
        var advertised = false
        if let address = properties["Address"]?.string { self.address = address }
        if let value = properties["RSSI"], let rssi = value.integer {
            self.rssi = Int(rssi)
            advertised = true
        }
        if let value = properties["ManufacturerData"], let entries = value.elements {
            var data: [UInt16: [UInt8]] = [:]
            for case .dictEntry(let key, let bytes) in entries {
                guard let company = key.integer.flatMap({ UInt16(exactly: $0) }), let bytes = bytes.bytes else {
                    continue
                }
                data[company] = bytes
            }
            manufacturerData = data
            advertised = true
        }
        if let value = properties["ServiceData"], let entries = value.elements {
            var data: [String: [UInt8]] = [:]
            for case .dictEntry(let key, let bytes) in entries {
                guard let uuid = key.string, let bytes = bytes.bytes else { continue }
                data[uuid.lowercased()] = bytes
            }
            serviceData = data
            advertised = true
        }
        return advertised
    }

    /// The advertisement, when there is an RSSI and some data to decode.
    var advertisement: BeaconAdvertisement? {
        guard let rssi, !(manufacturerData.isEmpty && serviceData.isEmpty) else { return nil }
        return BeaconAdvertisement(
            address: address, manufacturerData: manufacturerData, serviceData: serviceData, rssi: rssi)
    }
}
