/// Why a magnetic-field evaluation was refused. Match on `code`.
public struct MagneticModelError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: Sendable, Hashable {
        private enum Value: Sendable, Hashable {
            case invalidCoordinate, invalidHeight, invalidDate
        }
        private let value: Value

        /// Latitude NaN/infinite or outside [-90, 90], or longitude not finite.
        public static let invalidCoordinate = Code(value: .invalidCoordinate)
        /// Height NaN/infinite or outside the accepted range.
        public static let invalidHeight = Code(value: .invalidHeight)
        /// Date NaN/infinite or so far from the epoch that the model means nothing there.
        public static let invalidDate = Code(value: .invalidDate)
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
