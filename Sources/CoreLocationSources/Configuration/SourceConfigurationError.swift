/// A source URL or configuration file that cannot be used. Match on `code`.
public struct SourceConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case invalidURL, unsupportedScheme, invalidPort, invalidBaudRate, unreadableFile, notAvailable
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The text is not a source URL at all.
        public static let invalidURL = Code(.invalidURL)
        /// The scheme names no known kind of source.
        public static let unsupportedScheme = Code(.unsupportedScheme)
        /// A port outside 1…65535.
        public static let invalidPort = Code(.invalidPort)
        /// A `baud=` that is not a positive whole number.
        public static let invalidBaudRate = Code(.invalidBaudRate)
        /// A configuration file that exists but cannot be read.
        public static let unreadableFile = Code(.unreadableFile)
        /// The kind of source is not part of this build.
        public static let notAvailable = Code(.notAvailable)

        public var description: String { "\(value)" }
    }

    public var code: Code
    public var message: String
    /// Where it came from: "--source", or "FILE:LINE".
    public var origin: String?

    public init(_ code: Code, _ message: String, origin: String? = nil) {
        self.code = code
        self.message = message
        self.origin = origin
    }

    public var description: String { origin.map { "\($0): \(message)" } ?? message }

}

extension SourceConfigurationError.Code {
    public static func ~= (code: Self, error: any Error) -> Bool {
        (error as? SourceConfigurationError)?.code == code
    }
}
