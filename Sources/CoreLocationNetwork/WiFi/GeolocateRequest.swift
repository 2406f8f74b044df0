import Foundation

/// The body of an Ichnaea `POST /v1/geolocate` (beaconDB, Mozilla Location Service's API; Google's Geolocation
/// API has the same shape). `considerIp` is false: IP positioning is done here, offline, never by the service.
public struct GeolocateRequest: Codable, Sendable, Hashable {
    public struct AccessPoint: Codable, Sendable, Hashable {
        public var macAddress: String
        public var signalStrength: Int
        public var frequency: Int?
        public var age: Int?
    }

    /// Ichnaea's `cellTowers` entry: `locationAreaCode` is the LAC (GSM, UMTS) or the TAC (LTE, NR).
    public struct CellTower: Codable, Sendable, Hashable {
        public var radioType: String?
        public var mobileCountryCode: Int
        public var mobileNetworkCode: Int
        public var locationAreaCode: Int
        public var cellId: Int

        public init(_ cell: CellIdentity) {
            radioType = cell.radio?.ichnaeaName
            mobileCountryCode = cell.mcc
            mobileNetworkCode = cell.mnc
            locationAreaCode = cell.area
            cellId = cell.cellID
        }
    }

    public var considerIp: Bool
    public var wifiAccessPoints: [AccessPoint]?
    /// The serving cell (and any neighbours the modem reports); absent when there is none.
    public var cellTowers: [CellTower]?

    public init(accessPoints: [WiFiAccessPoint], cells: [CellIdentity] = []) {
        considerIp = false
        wifiAccessPoints = accessPoints.isEmpty ? nil : accessPoints.map {
            AccessPoint(
                macAddress: $0.bssid, signalStrength: $0.signalDBm, frequency: $0.frequency > 0 ? $0.frequency : nil,
                age: $0.ageMilliseconds > 0 ? $0.ageMilliseconds : nil)
        }
        cellTowers = cells.isEmpty ? nil : cells.map(CellTower.init)
    }

    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(self)
    }
}

/// A geolocate reply: `{"location": {"lat": …, "lng": …}, "accuracy": …}`.
public struct GeolocateReply: Codable, Sendable, Hashable {
    public struct Location: Codable, Sendable, Hashable {
        public var lat: Double
        public var lng: Double
    }

    public var location: Location
    /// Metres.
    public var accuracy: Double

    /// Decodes and checks a reply body: finite coordinates in range, accuracy > 0.
    public static func decode(_ body: Data) throws -> GeolocateReply {
        let reply: GeolocateReply
        do {
            reply = try JSONDecoder().decode(GeolocateReply.self, from: body)
        } catch {
            throw NetworkSourceError(.invalidReply, "the geolocate reply is not JSON of the expected shape: \(error)")
        }
        guard reply.location.lat.isFinite, reply.location.lng.isFinite, abs(reply.location.lat) <= 90,
            abs(reply.location.lng) <= 180, reply.accuracy.isFinite, reply.accuracy > 0
        else {
            throw NetworkSourceError(.invalidReply, "the geolocate reply has an impossible position or accuracy")
        }
        return reply
    }
}
