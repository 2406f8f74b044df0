import Foundation

/// The routes that ship with the library, like Xcode's City Run, City Bicycle Ride and Freeway
/// Drive, made from real recorded GPS tracks (see `scripts/routes-extract.py` for provenance):
///
/// - `run`: Lyon, France; 391 points 2 s apart, about 13 min at 7–11 km/h. No recording in the
///   sources is a true run; this stretch of a city walk/ride is the closest to running pace.
/// - `bike`: Lyon, France; 737 points 2 s apart, about 25 min at 15–30 km/h between stops.
/// - `drive`: around Višnjan, Croatia; 104 points 1–49 s apart (Garmin eTrex 20x), about 9 min,
///   up to 75 km/h on country roads.
public struct BuiltInRoute: Sendable, Hashable {
    /// The name to pass to `named(_:)` and `--simulate`.
    public let name: String
    /// One line for help text.
    public let summary: String

    private let data: String

    private init(name: String, summary: String, data: String) {
        self.name = name
        self.summary = summary
        self.data = data
    }

    /// Every built-in route, in the order help text should list them.
    public static let all: [BuiltInRoute] = [
        BuiltInRoute(name: "run", summary: "city run in Lyon, 13 min at about 8 km/h", data: runData),
        BuiltInRoute(name: "bike", summary: "city bicycle ride in Lyon, 25 min at about 18 km/h", data: bikeData),
        BuiltInRoute(name: "drive", summary: "country drive near Višnjan, Croatia, 9 min", data: driveData),
    ]

    /// The names of the built-in routes: `["run", "bike", "drive"]`.
    public static var names: [String] { all.map(\.name) }

    /// The decoded route called `name` (case-insensitive), or nil when there is none.
    public static func named(_ name: String) -> SimulatedRoute? {
        guard let entry = all.first(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }) else {
            return nil
        }
        return try? entry.route()
    }

    /// Decodes the route.
    /// - Throws: `SimulationError.Code.invalidRouteData` if the embedded data is damaged (a build
    ///   problem; the tests decode every route).
    public func route() throws -> SimulatedRoute {
        SimulatedRoute(name: name, points: try Self.decode(data, name: name))
    }

    /// Decodes the format written by `scripts/routes-extract.py`: "v1", the start time in ms since
    /// 1970, then per point "dlat,dlon,dele,dt" in micro-degrees, centimetres and milliseconds,
    /// absolute for the first point and differences afterwards; an empty elevation means none.
    static func decode(_ text: String, name: String) throws -> [RoutePoint] {
        func damaged(_ detail: String) -> SimulationError {
            SimulationError(code: .invalidRouteData, message: "built-in route \(name): \(detail)")
        }
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard tokens.count > 2, tokens[0] == "v1", let startMilliseconds = Int64(tokens[1]) else {
            throw damaged("bad header")
        }
        var latitude: Int64 = 0, longitude: Int64 = 0, elevation: Int64 = 0, milliseconds = startMilliseconds
        var points: [RoutePoint] = []
        points.reserveCapacity(tokens.count - 2)
        for token in tokens.dropFirst(2) {
            let fields = token.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count == 4, let dLat = Int64(fields[0]), let dLon = Int64(fields[1]),
                let dTime = Int64(fields[3])
            else { throw damaged("bad point \"\(token)\"") }
            latitude += dLat
            longitude += dLon
            milliseconds += dTime
            var pointElevation: Double?
            if !fields[2].isEmpty {
                guard let dElevation = Int64(fields[2]) else { throw damaged("bad elevation in \"\(token)\"") }
                elevation += dElevation
                pointElevation = Double(elevation) / 100
            }
            points.append(
                RoutePoint(
                    latitude: Double(latitude) / 1e6,
                    longitude: Double(longitude) / 1e6,
                    elevation: pointElevation,
                    time: Date(timeIntervalSince1970: Double(milliseconds) / 1000)
                )
            )
        }
        return points
    }
}
