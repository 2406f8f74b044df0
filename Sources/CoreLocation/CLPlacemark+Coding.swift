import Foundation

private var stringKeys: [(String, WritableKeyPath<CLPlacemark.Fields, String?>)] {
    [
    ("name", \.name), ("thoroughfare", \.thoroughfare), ("subThoroughfare", \.subThoroughfare),
    ("locality", \.locality), ("subLocality", \.subLocality), ("administrativeArea", \.administrativeArea),
    ("subAdministrativeArea", \.subAdministrativeArea), ("postalCode", \.postalCode),
    ("ISOcountryCode", \.isoCountryCode), ("country", \.country), ("inlandWater", \.inlandWater),
    ("ocean", \.ocean), ("timeZone", \.timeZoneIdentifier),
    ]
}

private var listKeys: [(String, WritableKeyPath<CLPlacemark.Fields, [String]?>)] {
    [
    ("areasOfInterest", \.areasOfInterest), ("formattedAddressLines", \.formattedAddressLines),
    ]
}

extension CLPlacemark.Fields {
    /// The time zone by its identifier, so it can be archived as a string.
    fileprivate var timeZoneIdentifier: String? {
        get { timeZone?.identifier }
        set { timeZone = newValue.flatMap(TimeZone.init(identifier:)) }
    }

    /// Reads what `CLPlacemark.encode(with:)` wrote; absent values stay nil.
    init(decodingWith coder: NSCoder) {
        self.init()
        for (key, path) in stringKeys {
            self[keyPath: path] = coder.decodeStringIfPresent(forKey: key)
        }
        for (key, path) in listKeys where coder.containsValue(forKey: "\(key).count") {
            let count = coder.decodeInteger(forKey: "\(key).count")
            self[keyPath: path] = (0..<max(0, count)).compactMap { index in
                coder.decodeStringIfPresent(forKey: "\(key).\(index)")
            }
        }
        location = coder.decodeIfPresent(CLLocation.self, forKey: "location")
        guard coder.containsValue(forKey: "region") else { return }
        region = coder.decodeObject(
            of: [CLRegion.self, CLCircularRegion.self, CLBeaconRegion.self, CLBeaconIdentityConstraint.self],
            forKey: "region"
        ) as? CLRegion
    }

    func encode(with coder: NSCoder) {
        for (key, path) in stringKeys {
            if let value = self[keyPath: path] { coder.encode(value as NSString, forKey: key) }
        }
        // Lists as numbered strings: portable across Foundation implementations without array bridging.
        for (key, path) in listKeys {
            guard let list = self[keyPath: path] else { continue }
            coder.encode(list.count, forKey: "\(key).count")
            for (index, value) in list.enumerated() {
                coder.encode(value as NSString, forKey: "\(key).\(index)")
            }
        }
        if let location { coder.encode(location, forKey: "location") }
        if let region { coder.encode(region, forKey: "region") }
    }
}
