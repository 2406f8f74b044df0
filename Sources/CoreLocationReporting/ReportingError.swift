/// An error of the reporter (queue, uploads, configuration), with a code a caller can match.
public struct ReportingError: Error, Sendable, CustomStringConvertible {
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The `--to` URL is not one the reporter speaks.
        public static let badURL = Code("badURL")
        /// The server refused the credentials (401/403): stop, keep the queue.
        public static let unauthorized = Code("unauthorized")
        /// The server does not speak the protocol (HTML or some other body where JSON was due; 404).
        public static let wrongServer = Code("wrongServer")
        /// The server does not know this device (OsmAnd's 400).
        public static let unknownDevice = Code("unknownDevice")
        /// The queue's disk (or its size limit) is full: the point was not queued.
        public static let diskFull = Code("diskFull")
        /// Another database problem of the queue.
        public static let database = Code("database")
        /// The server answered with an error status worth retrying (5xx, 429, 408).
        public static let serverError = Code("serverError")
        /// No answer: connection refused or reset, timeout, name resolution.
        public static let transport = Code("transport")
    }

    public let code: Code
    public let message: String
    public let underlying: (any Error & Sendable)?
    /// Seconds the server asked to wait (Retry-After), if any.
    public let retryAfter: Double?

    public init(code: Code, message: String, underlying: (any Error & Sendable)? = nil, retryAfter: Double? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
        self.retryAfter = retryAfter
    }

    /// Whether waiting and trying again can help (a refused login or a wrong URL will not fix itself).
    public var isRetryable: Bool {
        code == .serverError || code == .transport
    }

    public var description: String {
        underlying.map { "\(message): \($0)" } ?? message
    }
}

extension ReportingError.Code {
    /// `catch ReportingError.Code.unauthorized` matches a `ReportingError` with that code.
    public static func ~= (code: ReportingError.Code, error: any Error) -> Bool {
        (error as? ReportingError)?.code == code
    }
}
