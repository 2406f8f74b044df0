import CoreLocation
import Foundation

/// One line per placemark: the name and address parts, the coordinate and the time zone.
enum PlacemarkText {
    static func line(_ placemark: CLPlacemark) -> String {
        var parts = [placemark.name, placemark.subLocality, placemark.locality, placemark.subAdministrativeArea,
                     placemark.administrativeArea, placemark.postalCode, placemark.country]
            .compactMap { $0 }
        parts = parts.enumerated().filter { index, part in !parts[..<index].contains(part) }.map(\.element)
        var line = parts.joined(separator: ", ")
        if let code = placemark.isoCountryCode { line += " [\(code)]" }
        if let coordinate = placemark.location?.coordinate {
            line += String(format: "  %+.5f,%+.5f", coordinate.latitude, coordinate.longitude)
        }
        if let zone = placemark.timeZone { line += "  \(zone.identifier)" }
        return line
    }
}

/// Every CLPlacemark field; absent ones are `null`, so a reader sees the whole shape.
struct PlacemarkJSON: Encodable {
    let placemark: CLPlacemark

    enum Keys: String, CodingKey {
        case name, thoroughfare, subThoroughfare, locality, subLocality, administrativeArea, subAdministrativeArea
        case postalCode, isoCountryCode, country, inlandWater, ocean, areasOfInterest, timeZone, location, region
        case postalAddress
    }

    struct Point: Encodable {
        let latitude: Double
        let longitude: Double
    }

    struct Circle: Encodable {
        let identifier: String
        let latitude: Double
        let longitude: Double
        let radius: Double
    }

    struct Address: Encodable {
        let street, subLocality, city, subAdministrativeArea, state, postalCode, country, isoCountryCode: String
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        let p = placemark
        for (key, value) in [(Keys.name, p.name), (.thoroughfare, p.thoroughfare),
                             (.subThoroughfare, p.subThoroughfare), (.locality, p.locality),
                             (.subLocality, p.subLocality), (.administrativeArea, p.administrativeArea),
                             (.subAdministrativeArea, p.subAdministrativeArea), (.postalCode, p.postalCode),
                             (.isoCountryCode, p.isoCountryCode), (.country, p.country),
                             (.inlandWater, p.inlandWater), (.ocean, p.ocean), (.timeZone, p.timeZone?.identifier)] {
            try container.encode(value, forKey: key)
        }
        try container.encode(p.areasOfInterest, forKey: .areasOfInterest)
        let point = p.location.map { Point(latitude: $0.coordinate.latitude, longitude: $0.coordinate.longitude) }
        try container.encode(point, forKey: .location)
        let circle = (p.region as? CLCircularRegion).map {
            Circle(identifier: $0.identifier, latitude: $0.center.latitude, longitude: $0.center.longitude,
                   radius: $0.radius)
        }
        try container.encode(circle, forKey: .region)
        let address = p.postalAddress.map {
            Address(street: $0.street, subLocality: $0.subLocality, city: $0.city,
                    subAdministrativeArea: $0.subAdministrativeArea, state: $0.state, postalCode: $0.postalCode,
                    country: $0.country, isoCountryCode: $0.isoCountryCode)
        }
        try container.encode(address, forKey: .postalAddress)
    }

    static func encode(_ placemarks: [CLPlacemark]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(placemarks.map(PlacemarkJSON.init)), as: UTF8.self)
    }
}
