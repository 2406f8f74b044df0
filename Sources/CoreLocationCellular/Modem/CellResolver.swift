import CoreLocationNetwork
import Foundation

/// Resolves a serving cell to a position: the offline cell table first, then (only with the user's consent,
/// through `WiFiGeolocator`'s rate limit and cache) the geolocate service's `cellTowers`.
public struct CellResolver: Sendable {
    public var table: CellTable?
    public var geolocator: WiFiGeolocator?

    public init(table: CellTable?, geolocator: WiFiGeolocator?) {
        self.table = table
        self.geolocator = geolocator
    }

    public struct Answer: Sendable, Hashable {
        public var latitude: Double
        public var longitude: Double
        public var horizontalAccuracy: Double
        /// "table" or "online".
        public var origin: String
    }

    /// - Throws: `CellError(.unknownCell)` saying where it was looked for; `.databaseInvalid` for a damaged table.
    public func resolve(_ cell: CellIdentity) async throws -> Answer {
        if let table, let found = try table.lookup(cell) {
            return Answer(
                latitude: found.latitude, longitude: found.longitude, horizontalAccuracy: found.horizontalAccuracy,
                origin: "table")
        }
        var tried = table == nil ? "no cell table" : "not in the cell table"
        if let geolocator {
            do {
                let reply = try await geolocator.locate([], cells: [cell])
                return Answer(
                    latitude: reply.location.lat, longitude: reply.location.lng,
                    horizontalAccuracy: min(max(reply.accuracy, CellAccuracy.minimum), CellAccuracy.maximum),
                    origin: "online")
            } catch {
                tried += "; online: \(error)"
            }
        }
        throw CellError(.unknownCell, "cell \(cell) unknown (\(tried))")
    }
}
