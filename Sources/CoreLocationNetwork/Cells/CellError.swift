/// What went wrong with a cell: a 3GPP identity that cannot be read, a cell table that cannot be opened or
/// read, a cell that no table knows. Match by `code` (`catch CellError.Code.unknownCell`).
public struct CellError: Error, Sendable, Equatable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String {
            case malformedIdentity, databaseMissing, databaseInvalid, unknownCell, importFailed
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }
        /// The modem's 3GPP string is not `MCC,MNC,LAC,CI[,TAC]` with valid values.
        public static let malformedIdentity = Code(.malformedIdentity)
        /// The cell table file does not exist or cannot be opened.
        public static let databaseMissing = Code(.databaseMissing)
        /// The file is not a cell table (corrupt, truncated, another database).
        public static let databaseInvalid = Code(.databaseInvalid)
        /// No table knows the cell.
        public static let unknownCell = Code(.unknownCell)
        /// The CSV could not be read at all (a bad row is skipped, never this).
        public static let importFailed = Code(.importFailed)
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

extension CellError.Code {
    public static func ~= (code: Self, error: any Error) -> Bool {
        (error as? CellError)?.code == code
    }
}
