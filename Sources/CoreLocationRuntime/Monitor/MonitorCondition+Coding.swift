import Foundation

/// The JSON a monitor's record keeps its condition in, in the form `CLMonitor`'s conditions always had
/// (`{"circular":{"latitude":…,"longitude":…,"radius":…}}`, `{"beacon":{"uuid":…,"major":…,"minor":…}}`), so
/// records stored by earlier versions read back.
extension MonitorCondition: Codable {
    private enum Keys: String, CodingKey { case circular, beacon }
    private enum CircleKeys: String, CodingKey { case latitude, longitude, radius }
    private enum BeaconKeys: String, CodingKey { case uuid, major, minor }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        if container.contains(.circular) {
            let circle = try container.nestedContainer(keyedBy: CircleKeys.self, forKey: .circular)
            self = .circle(
                latitude: try circle.decode(Double.self, forKey: .latitude),
                longitude: try circle.decode(Double.self, forKey: .longitude),
                radius: try circle.decode(Double.self, forKey: .radius))
        } else if container.contains(.beacon) {
            let beacon = try container.nestedContainer(keyedBy: BeaconKeys.self, forKey: .beacon)
            self = .beacon(
                uuid: try beacon.decode(UUID.self, forKey: .uuid),
                major: try beacon.decodeIfPresent(UInt16.self, forKey: .major),
                minor: try beacon.decodeIfPresent(UInt16.self, forKey: .minor))
        } else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "no condition"))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        switch self {
        case let .circle(latitude, longitude, radius):
            var circle = container.nestedContainer(keyedBy: CircleKeys.self, forKey: .circular)
            try circle.encode(latitude, forKey: .latitude)
            try circle.encode(longitude, forKey: .longitude)
            try circle.encode(radius, forKey: .radius)
        case let .beacon(uuid, major, minor):
            var beacon = container.nestedContainer(keyedBy: BeaconKeys.self, forKey: .beacon)
            try beacon.encode(uuid, forKey: .uuid)
            try beacon.encodeIfPresent(major, forKey: .major)
            try beacon.encodeIfPresent(minor, forKey: .minor)
        }
    }
}
