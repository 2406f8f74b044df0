/// Why a simulation could not be set up (a bad `--simulate` argument, an unreadable or invalid GPX
/// file, an impossible speed).
public struct SimulationError: Error, Sendable, CustomStringConvertible {
    /// The kind of problem. A struct wrapping a private enum, so that new codes can be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case invalidCoordinate, unknownScenario, unreadableFile, invalidGPX, invalidSpeed, invalidRouteData
        }

        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// "LAT,LON" with a part that is not a number or is out of range.
        public static let invalidCoordinate = Code(.invalidCoordinate)
        /// Neither a built-in route name, nor a file, nor "LAT,LON".
        public static let unknownScenario = Code(.unknownScenario)
        /// A GPX file that could not be read; `underlying` has the system's error.
        public static let unreadableFile = Code(.unreadableFile)
        /// A GPX file that could not be parsed; `underlying` is the `GPXError`.
        public static let invalidGPX = Code(.invalidGPX)
        /// A speed multiplier that is not > 0 (NaN, zero, negative).
        public static let invalidSpeed = Code(.invalidSpeed)
        /// Built-in route data that does not decode (a build problem, never user input).
        public static let invalidRouteData = Code(.invalidRouteData)

        public var description: String {
            switch value {
            case .invalidCoordinate: "invalid coordinate"
            case .unknownScenario: "unknown scenario"
            case .unreadableFile: "unreadable file"
            case .invalidGPX: "invalid GPX"
            case .invalidSpeed: "invalid speed"
            case .invalidRouteData: "invalid route data"
            }
        }

        /// Lets `catch SimulationError.Code.invalidCoordinate { … }` match a thrown `SimulationError`.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? SimulationError)?.code == code
        }
    }

    public var code: Code
    /// What was wrong, for people (names the offending argument or file).
    public var message: String
    /// The error that caused this one, when there is one (a `GPXError`, a file-system error).
    public var underlying: (any Error)?

    public init(code: Code, message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    public var description: String {
        guard let underlying else { return message }
        return "\(message): \(underlying)"
    }
}
