/// What went wrong in a network positioning source: a database that cannot be read, a lookup that found
/// nothing usable, a geolocation service that refused or failed. Match by `code`.
public struct NetworkSourceError: Error, Sendable, Equatable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String {
            case databaseMissing, databaseInvalid, lookupFailed, noAddress, notGlobal, notFound, noCoordinates
            case notConsented, tooFewAccessPoints, rateLimited, serviceFailed, invalidReply, busFailed
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }
        /// The database file does not exist or cannot be opened.
        public static let databaseMissing = Code(.databaseMissing)
        /// The file is not a MaxMind DB (corrupt, truncated, another format).
        public static let databaseInvalid = Code(.databaseInvalid)
        /// The database is damaged where the address leads.
        public static let lookupFailed = Code(.lookupFailed)
        /// No address to look up: none configured and the machine has no global one.
        public static let noAddress = Code(.noAddress)
        /// The address is private, loopback, link-local, carrier-grade NAT or reserved.
        public static let notGlobal = Code(.notGlobal)
        /// The database does not know the address / the service found no position.
        public static let notFound = Code(.notFound)
        /// The database knows the address but gives no coordinates (a country-only database).
        public static let noCoordinates = Code(.noCoordinates)
        /// Wi-Fi positioning is off: the user has not turned it on (`locationctl network wifi on`).
        public static let notConsented = Code(.notConsented)
        /// Fewer than two usable access points.
        public static let tooFewAccessPoints = Code(.tooFewAccessPoints)
        /// The rate limit (ours, or the service's 429) holds the request back.
        public static let rateLimited = Code(.rateLimited)
        /// The geolocation service failed (HTTP error, timeout, unreachable).
        public static let serviceFailed = Code(.serviceFailed)
        /// The service answered something that is not a geolocate reply.
        public static let invalidReply = Code(.invalidReply)
        /// NetworkManager (or another D-Bus service) could not be asked.
        public static let busFailed = Code(.busFailed)
        public var description: String { value.rawValue }
    }

    public var code: Code
    public var message: String
    public var underlying: (any Error & Sendable)?

    public init(_ code: Code, _ message: String, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    public var description: String { message }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code && lhs.message == rhs.message }

}

extension NetworkSourceError.Code {
    /// `catch NetworkSourceError.Code.notFound` style matching.
    public static func ~= (code: Self, error: any Error) -> Bool {
        (error as? NetworkSourceError)?.code == code
    }
}
