/// An error from the geocoding layer. The CoreLocation façade maps each code to a `CLError`.
///
/// A struct wrapping a private enum, so codes can be added without breaking callers; match with `~=`
/// (`catch GeocodingError.Code.noResult`) or compare `code`.
public struct GeocodingError: Error, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: Hashable, Sendable {
            case invalidInput, noResult, resourceUnavailable, resourceCorrupt
            case network, throttled, cancelled, badResponse
        }
        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// The query was empty, too long, or a coordinate was out of range or not a number.
        public static let invalidInput = Code(.invalidInput)
        /// The query was fine but nothing matched it.
        public static let noResult = Code(.noResult)
        /// The gazetteer resource file could not be found or read.
        public static let resourceUnavailable = Code(.resourceUnavailable)
        /// The gazetteer resource is truncated, has a bad checksum, or is of an unknown version.
        public static let resourceCorrupt = Code(.resourceCorrupt)
        /// The online backend could not be reached, timed out, or answered with an HTTP error.
        public static let network = Code(.network)
        /// The request was refused by the client-side rate limit.
        public static let throttled = Code(.throttled)
        /// The request was cancelled.
        public static let cancelled = Code(.cancelled)
        /// The online backend answered with something that is not a valid Nominatim response.
        public static let badResponse = Code(.badResponse)

        public var description: String { "\(kind)" }

        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? GeocodingError)?.code == code
        }
    }

    public let code: Code
    public let message: String
    public let underlying: (any Error & Sendable)?

    public init(_ code: Code, _ message: String, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    public var description: String {
        "GeocodingError.\(code): \(message)" + (underlying.map { " (\($0))" } ?? "")
    }
}
