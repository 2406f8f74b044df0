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
/// resolved. The document is UTF-8, US-ASCII, ISO-8859-1 or UTF-16; another encoding is refused before
/// the XML parser starts (`GPXError.Code.unsupportedEncoding`).
public struct GPXParser: Sendable {
    public init() {}

    /// Parses `data` and returns its points as a route named `name`.
    /// - Throws: `GPXError`.
    public func route(from data: Data, name: String) throws -> SimulatedRoute {
        SimulatedRoute(name: name, points: try points(from: data))
    }

    /// Parses `data` and returns its points (see the type's documentation for which ones).
    ///
    /// The bytes are handed to the XML parser in chunks (as a stream), so a document of any size is
    /// read: libxml2 refuses a single input over 10 MB, which `XMLParser(data:)` would give it.
    /// - Throws: `GPXError`.
    public func points(from data: Data) throws -> [RoutePoint] {
        var points: [RoutePoint] = []
        try forEachPoint(in: InputStream(data: data)) { points.append($0) }
        return points
    }

    /// Parses the GPX file at `path` as a stream (any size; the document is never held whole) and
    /// returns its points as a route named after the file.
    /// - Throws: `GPXError` for the document, `FileProblem` when the path cannot be read as a file.
    public func route(contentsOfFile path: String) throws -> SimulatedRoute {
        let stream = try FileProblem.openStream(path)
        var points: [RoutePoint] = []
        try forEachPoint(in: stream) { points.append($0) }
        let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        return SimulatedRoute(name: name, points: points)
    }

    /// Streams the points of the document `stream` holds to `body`, in order, without keeping the
    /// document: track points go to `body` as they are read; route points and waypoints (used only
    /// when there is no track point) are kept until the end. `body` may throw to stop.
    /// - Throws: `GPXError`, or what `body` throws.
    public func forEachPoint(in stream: InputStream, _ body: (RoutePoint) throws -> Void) throws {
        // The reader holds `body` only for the duration of this call.
        try withoutActuallyEscaping(body) { try parse(stream, $0) }
    }

    private func parse(_ stream: InputStream, _ body: @escaping (RoutePoint) throws -> Void) throws {
        // First of all: libxml2 must never see an encoding it decodes through iconv (it can crash there).
        let stream = try GPXEncodingCheck.checked(stream)
        let parser = XMLParser(stream: stream)
        parser.shouldResolveExternalEntities = false
        var previousTime: Date?
        var trackPoints = 0
        var failure: (any Error)?
        let reader = GPXReader { kind, entry in
            guard kind == .track, failure == nil else { return kind == .track ? false : nil }
            do {
                try Self.checkOrder(entry, previous: &previousTime)
                trackPoints += 1
                try body(entry.point)
                return true
            } catch {
                failure = error
                return false
            }
        }
        parser.delegate = reader
        let completed = parser.parse()
        if let error = stream.encodingError { throw error }
        if let failure { throw failure }
        if let error = reader.error { throw error }
        if let line = reader.xmlErrorLine ?? (completed ? nil : parser.lineNumber) {
            throw GPXError(code: .malformedXML, line: max(1, line), message: "not well-formed XML")
        }
        guard reader.sawRoot else {
            throw GPXError(code: .malformedXML, line: 1, message: "no XML element (empty document?)")
        }
        if let open = reader.openElement {
            throw GPXError(
                code: .malformedXML, line: max(1, reader.lastLine),
                message: "not well-formed XML: the document ends inside <\(open)>"
            )
        }
        guard trackPoints == 0 else { return }
        let chosen = [reader.routePoints, reader.waypoints].first { !$0.isEmpty } ?? []
        guard !chosen.isEmpty else {
            throw GPXError(code: .noPoints, line: max(1, reader.lastLine), message: "no trkpt, rtept or wpt")
        }
        previousTime = nil
        for entry in chosen { try Self.checkOrder(entry, previous: &previousTime) }
        for entry in chosen { try body(entry.point) }
    }

    private static func checkOrder(_ entry: GPXReader.Entry, previous: inout Date?) throws {
        guard let time = entry.point.time else { return }
        if let previousTime = previous, time < previousTime {
            throw GPXError(
                code: .timeGoesBackwards, line: entry.line,
                message: "point time \(time) is earlier than the previous point's \(previousTime)"
            )
        }
        previous = time
    }
}

/// The SAX delegate. Used by one `parse()` call on one thread, never shared.
///
/// Track points go to `emit` as soon as they end (nothing is kept); `emit` returns false to stop the
/// parse. Route points and waypoints are kept, for a document without track points.
private final class GPXReader: NSObject, XMLParserDelegate {
    struct Entry {
        var point: RoutePoint
        var line: Int
    }

    enum Kind: Equatable { case track, route, waypoint }

    /// Called with each finished point: true goes on, false stops the parse, nil keeps the point.
    private let emit: (Kind, Entry) -> Bool?
    private(set) var routePoints: [Entry] = []
    private(set) var waypoints: [Entry] = []
    private(set) var error: GPXError?
    private(set) var sawRoot = false
    private(set) var lastLine = 1

    private var current: (kind: Kind, entry: Entry)?
    private var text = ""
    /// Names of the elements open now (the parser is not told the end of the input, so an unclosed
    /// element is found here).
    private var open: [String] = []
    var openElement: String? { open.last }

    init(emit: @escaping (Kind, Entry) -> Bool?) {
        self.emit = emit
    }

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
        open.append(elementName)
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
        if !open.isEmpty { open.removeLast() }
        guard let (kind, found) = current else { return }
        var entry = found
        let name = Self.localName(elementName)
        let line = parser.lineNumber
        switch name {
        case "trkpt", "rtept", "wpt":
            current = nil
            switch emit(kind, entry) {
            case true?: break
            case false?: parser.abortParsing()
            case nil:
                if kind == .route { routePoints.append(entry) } else { waypoints.append(entry) }
            }
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
