import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads GPX 1.0 and 1.1 documents into routes.
///
/// Which points: track points (`trkpt`, every segment of every track, in document order); if there
/// are none, route points (`rtept`); if there are none, waypoints (`wpt`). Per point it reads the
/// `lat`/`lon` attributes, `ele` (metres above mean sea level), `time` (see `parseTime`), and `speed`
/// (m/s) and `course` (degrees) whether written GPX 1.0 style or inside `extensions` (any element
/// whose local name is `speed` or `course`, e.g. Garmin's `gpxtpx:speed`). A negative speed or
/// course means "unknown" to some writers and is read as absent; a course is reduced to [0, 360).
///
/// Errors are `GPXError`s with the line where the problem was seen. External entities are never
/// resolved.
public struct GPXParser: Sendable {
    public init() {}

    /// Parses `data` and returns its points as a route named `name`.
    /// - Throws: `GPXError`.
    public func route(from data: Data, name: String) throws -> SimulatedRoute {
        SimulatedRoute(name: name, points: try points(from: data))
    }

    /// Parses `data` and returns its points (see the type's documentation for which ones).
    /// - Throws: `GPXError`.
    public func points(from data: Data) throws -> [RoutePoint] {
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        let reader = GPXReader()
        parser.delegate = reader
        let completed = parser.parse()
        if let error = reader.error { throw error }
        if let line = reader.xmlErrorLine ?? (completed ? nil : parser.lineNumber) {
            throw GPXError(code: .malformedXML, line: max(1, line), message: "not well-formed XML")
        }
        guard reader.sawRoot else {
            throw GPXError(code: .malformedXML, line: 1, message: "no XML element (empty document?)")
        }
        let chosen = [reader.trackPoints, reader.routePoints, reader.waypoints].first { !$0.isEmpty } ?? []
        guard !chosen.isEmpty else {
            throw GPXError(code: .noPoints, line: max(1, reader.lastLine), message: "no trkpt, rtept or wpt")
        }
        var previousTime: Date?
        for entry in chosen {
            guard let time = entry.point.time else { continue }
            if let previousTime, time < previousTime {
                throw GPXError(
                    code: .timeGoesBackwards, line: entry.line,
                    message: "point time \(time) is earlier than the previous point's \(previousTime)"
                )
            }
            previousTime = time
        }
        return chosen.map(\.point)
    }
}

/// The SAX delegate. Used by one `parse()` call on one thread, never shared.
private final class GPXReader: NSObject, XMLParserDelegate {
    struct Entry {
        var point: RoutePoint
        var line: Int
    }

    enum Kind { case track, route, waypoint }

    private(set) var trackPoints: [Entry] = []
    private(set) var routePoints: [Entry] = []
    private(set) var waypoints: [Entry] = []
    private(set) var error: GPXError?
    private(set) var sawRoot = false
    private(set) var lastLine = 1

    private var current: (kind: Kind, entry: Entry)?
    private var text = ""

    /// Line of the first XML error that matters.
    private(set) var xmlErrorLine: Int?

    /// Namespace-prefix problems (libxml2 codes 200–205, e.g. an undeclared `gpxtpx:` prefix) do not
    /// stop us reading coordinates; anything else does. libxml2 may recover and go on, so the line
    /// is taken here, where the error is seen.
    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        guard error == nil, xmlErrorLine == nil, !(200...205).contains((parseError as NSError).code) else { return }
        xmlErrorLine = parser.lineNumber
        parser.abortParsing()
    }

    private func fail(_ parser: XMLParser, _ code: GPXError.Code, line: Int, _ message: String) {
        guard error == nil else { return }
        error = GPXError(code: code, line: max(1, line), message: message)
        parser.abortParsing()
    }

    private static func localName(_ name: String) -> Substring {
        name.split(separator: ":").last ?? Substring(name)
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
    ) {
        lastLine = parser.lineNumber
        let name = Self.localName(elementName)
        if !sawRoot {
            sawRoot = true
            guard name == "gpx" else {
                return fail(parser, .notGPX, line: parser.lineNumber, "root element is <\(elementName)>, not <gpx>")
            }
            return
        }
        text = ""
        let kind: Kind
        switch name {
        case "trkpt": kind = .track
        case "rtept": kind = .route
        case "wpt": kind = .waypoint
        default: return
        }
        guard current == nil else { return }
        let line = parser.lineNumber
        guard let latText = attributeDict["lat"], let lonText = attributeDict["lon"] else {
            let missing = attributeDict["lat"] == nil ? "lat" : "lon"
            return fail(parser, .missingCoordinate, line: line, "<\(name)> has no \(missing) attribute")
        }
        guard let latitude = Self.number(latText) else {
            return fail(parser, .invalidNumber, line: line, "lat \"\(latText)\" is not a number")
        }
        guard let longitude = Self.number(lonText) else {
            return fail(parser, .invalidNumber, line: line, "lon \"\(lonText)\" is not a number")
        }
        guard (-90...90).contains(latitude), (-180...180).contains(longitude) else {
            return fail(
                parser, .coordinateOutOfRange, line: line,
                "lat \(latText), lon \(lonText) is outside [-90, 90] × [-180, 180]"
            )
        }
        current = (kind, Entry(point: RoutePoint(latitude: latitude, longitude: longitude), line: line))
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if current != nil { text += string }
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?
    ) {
        lastLine = parser.lineNumber
        guard let (kind, found) = current else { return }
        var entry = found
        let name = Self.localName(elementName)
        let line = parser.lineNumber
        switch name {
        case "trkpt", "rtept", "wpt":
            switch kind {
            case .track: trackPoints.append(entry)
            case .route: routePoints.append(entry)
            case .waypoint: waypoints.append(entry)
            }
            current = nil
            return
        case "ele", "speed", "course":
            guard let value = Self.number(text) else {
                return fail(parser, .invalidNumber, line: line, "<\(elementName)> \"\(text)\" is not a number")
            }
            switch name {
            case "ele": entry.point.elevation = value
            case "speed": entry.point.speed = value >= 0 ? value : nil
            default:
                entry.point.course = value >= 0 ? value.truncatingRemainder(dividingBy: 360) : nil
            }
        case "time":
            guard let time = GPXParser.parseTime(text) else {
                return fail(parser, .invalidTime, line: line, "<time> \"\(text)\" is not an ISO 8601 date-time")
            }
            entry.point.time = time
        default:
            break
        }
        current = (kind, entry)
    }

    private static func number(_ text: String) -> Double? {
        guard let value = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)), value.isFinite else {
            return nil
        }
        return value
    }
}
