import Foundation

/// What a `SimulatedLocationSource` plays.
public enum SimulationScenario: Sendable, Hashable {
    /// One place, reported every second (WGS84 degrees).
    case fixed(latitude: Double, longitude: Double)
    /// A route replayed at recorded pace times the source's speed.
    case route(SimulatedRoute)
    /// A GPX file replayed as a stream, never held whole (`parse(_:streamingFiles:)`).
    case gpxFile(GPXRouteFile)

    /// Whether this is a route (recorded or a GPX file), not a fixed place.
    public var isRoute: Bool {
        if case .fixed = self { return false }
        return true
    }

    /// Reads the `--simulate` argument: a built-in route name (`run`, `bike`, `drive`;
    /// case-insensitive), a path to a GPX file, or `LAT,LON` in decimal degrees (e.g.
    /// `48.8584,2.2945`; spaces around the numbers allowed).
    ///
    /// An existing file wins over the other readings; an argument ending in `.gpx` or containing `/`
    /// is always a path.
    /// - Throws: `SimulationError` — `.invalidCoordinate` (naming the bad part and the allowed
    ///   range), `.unreadableFile`, `.invalidGPX` (wrapping the `GPXError` with its line), or
    ///   `.unknownScenario` (listing what is accepted).
    ///
    /// With `streamingFiles`, a GPX file is scanned once as a stream and given as `.gpxFile` (its
    /// points are read again as a replay needs them), so memory does not grow with the file.
    public static func parse(_ argument: String, streamingFiles: Bool = false) throws -> SimulationScenario {
        let text = argument.trimmingCharacters(in: .whitespaces)
        if let route = BuiltInRoute.named(text) { return .route(route) }
        let looksLikePath = text.lowercased().hasSuffix(".gpx") || text.contains("/")
        if looksLikePath || (!text.isEmpty && FileManager.default.fileExists(atPath: text)) {
            return streamingFiles ? .gpxFile(try scanGPX(path: text)) : .route(try loadGPX(path: text))
        }
        if text.contains(",") { return try coordinate(text) }
        let names = BuiltInRoute.names.joined(separator: ", ")
        throw SimulationError(
            code: .unknownScenario,
            message: "\"\(argument)\" is not a built-in route (\(names)), a GPX file, or LAT,LON"
        )
    }

    private static func coordinate(_ text: String) throws -> SimulationScenario {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2 else {
            throw SimulationError(
                code: .invalidCoordinate, message: "\"\(text)\" is not LAT,LON (two numbers separated by a comma)"
            )
        }
        let latitude = try number(parts[0], named: "latitude", range: -90...90)
        let longitude = try number(parts[1], named: "longitude", range: -180...180)
        return .fixed(latitude: latitude, longitude: longitude)
    }

    private static func number(_ text: String, named name: String, range: ClosedRange<Double>) throws -> Double {
        guard let value = Double(text), value.isFinite else {
            throw SimulationError(code: .invalidCoordinate, message: "\(name) \"\(text)\" is not a decimal number")
        }
        guard range.contains(value) else {
            throw SimulationError(
                code: .invalidCoordinate,
                message: "\(name) \(text) is outside [\(range.lowerBound), \(range.upperBound)] degrees"
            )
        }
        return value
    }

    /// Reads the GPX file as a stream (any size). A path that is not a readable file gives
    /// `.unreadableFile` wrapping the `FileProblem` ("no such file: PATH", "permission denied: PATH"…).
    private static func scanGPX(path: String) throws -> GPXRouteFile {
        do {
            return try GPXRouteFile.scan(path: path)
        } catch let problem as FileProblem {
            throw SimulationError(code: .unreadableFile, message: problem.message)
        } catch let error as GPXError {
            throw SimulationError(code: .invalidGPX, message: "invalid GPX file \(path)", underlying: error)
        }
    }

    private static func loadGPX(path: String) throws -> SimulatedRoute {
        do {
            return try GPXParser().route(contentsOfFile: path)
        } catch let problem as FileProblem {
            throw SimulationError(code: .unreadableFile, message: problem.message)
        } catch let error as GPXError {
            throw SimulationError(code: .invalidGPX, message: "invalid GPX file \(path)", underlying: error)
        }
    }
}
