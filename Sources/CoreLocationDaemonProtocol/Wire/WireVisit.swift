import Foundation

/// A stay at one place (`CLVisit`): `arrival` absent when it began before anything was seen, `departure`
/// absent while it goes on; centre in degrees, `horizontalAccuracy` in metres; `decidedAt` the time of the
/// fix that decided it. Dates are seconds since 2001-01-01 00:00:00 UTC.
public struct WireVisit: Hashable, Sendable {
    public var arrival: Date?
    public var departure: Date?
    public var latitude: Double
    public var longitude: Double
    public var horizontalAccuracy: Double
    public var decidedAt: Date

    public init(
        arrival: Date?, departure: Date?, latitude: Double, longitude: Double, horizontalAccuracy: Double,
        decidedAt: Date
    ) {
        self.arrival = arrival
        self.departure = departure
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracy = horizontalAccuracy
        self.decidedAt = decidedAt
    }
}

extension WireVisit: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKey.self)
        arrival = try c.decodeIfPresent(Date.self, forKey: "arrival")
        departure = try c.decodeIfPresent(Date.self, forKey: "departure")
        latitude = try c.decode(Double.self, forKey: "latitude")
        longitude = try c.decode(Double.self, forKey: "longitude")
        horizontalAccuracy = try c.decode(Double.self, forKey: "horizontalAccuracy")
        decidedAt = try c.decode(Date.self, forKey: "decidedAt")
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKey.self)
        try c.encodeIfPresent(arrival, forKey: "arrival")
        try c.encodeIfPresent(departure, forKey: "departure")
        try c.encode(latitude, forKey: "latitude")
        try c.encode(longitude, forKey: "longitude")
        try c.encode(horizontalAccuracy, forKey: "horizontalAccuracy")
        try c.encode(decidedAt, forKey: "decidedAt")
    }
}
