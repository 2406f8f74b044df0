/// Why a GPX document could not be read, and where.
///
/// Match on the code: `catch let error as GPXError where error.code == .noPoints`, or
/// `catch GPXError.Code.timeGoesBackwards` (the code type has a `~=` for errors).
public struct GPXError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of problem. A struct wrapping a private enum, so that new codes can be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case malformedXML, notGPX, noPoints, missingCoordinate, invalidNumber, coordinateOutOfRange
            case invalidTime, timeGoesBackwards, unsupportedEncoding
        }

        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The bytes are not well-formed XML (or are empty).
        public static let malformedXML = Code(.malformedXML)
        /// Well-formed XML whose root element is not `gpx`.
        public static let notGPX = Code(.notGPX)
        /// No `trkpt`, `rtept` or `wpt` at all.
        public static let noPoints = Code(.noPoints)
        /// A point without its `lat` or `lon` attribute.
        public static let missingCoordinate = Code(.missingCoordinate)
        /// `lat`, `lon`, `ele`, `speed` or `course` is not a finite decimal number.
        public static let invalidNumber = Code(.invalidNumber)
        /// Latitude outside [-90, 90] or longitude outside [-180, 180] degrees.
        public static let coordinateOutOfRange = Code(.coordinateOutOfRange)
        /// A `time` that is not an ISO 8601 date-time.
        public static let invalidTime = Code(.invalidTime)
        /// A point recorded earlier than the point before it.
        public static let timeGoesBackwards = Code(.timeGoesBackwards)

        /// A character encoding the parser does not read: a GPX file is UTF-8, US-ASCII, ISO-8859-1 or
        /// UTF-16 (another declared encoding, a UCS-4 or EBCDIC document), or an XML declaration that
        /// does not parse. Always line 1.
        public static let unsupportedEncoding = Code(.unsupportedEncoding)

        public var description: String {
            switch value {
            case .malformedXML: "malformed XML"
            case .notGPX: "not GPX"
            case .noPoints: "no points"
            case .missingCoordinate: "missing coordinate"
            case .invalidNumber: "invalid number"
            case .coordinateOutOfRange: "coordinate out of range"
            case .invalidTime: "invalid time"
            case .timeGoesBackwards: "time goes backwards"
            case .unsupportedEncoding: "unsupported encoding"
            }
        }

        /// Lets `catch GPXError.Code.noPoints { … }` match a thrown `GPXError`.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? GPXError)?.code == code
        }
    }

    public var code: Code
    /// 1-based line of the document where the problem was seen: for a point, the line on which its
    /// start tag ends (the XML parser reports positions there); for a bad child (`ele`, `time`…), the
    /// line of its end tag; for "no points", the last line read.
    public var line: Int
    /// What was wrong, for people.
    public var message: String

    public init(code: Code, line: Int, message: String) {
        self.code = code
        self.line = line
        self.message = message
    }

    public var description: String { "GPX line \(line): \(message)" }
}
