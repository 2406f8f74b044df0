/// The one error type of LocationStorage.
///
/// Match on ``code`` (or `catch StorageError.Code.cannotOpen { … }` through `~=`); ``message`` is
/// for people and names the file or value involved; ``underlying`` keeps the cause (a
/// `DatabaseError`, a `CocoaError`, …) when there is one.
public struct StorageError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as a value callers can match. New codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable {
            case cannotCreateDirectory
            case cannotOpen
            case cannotMoveAside
            case invalidValue
            case database
        }

        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// The database's parent directory could not be created.
        public static let cannotCreateDirectory = Code(.cannotCreateDirectory)
        /// The database file could not be created, opened or given mode 0600.
        public static let cannotOpen = Code(.cannotOpen)
        /// A corrupted or foreign file could not be moved out of the way.
        public static let cannotMoveAside = Code(.cannotMoveAside)
        /// A stored value is not one this version understands (an unknown level, say).
        public static let invalidValue = Code(.invalidValue)
        /// SQLite reported an error while reading or writing.
        public static let database = Code(.database)

        public var description: String {
            switch wrapped {
            case .cannotCreateDirectory: "cannot create directory"
            case .cannotOpen: "cannot open database"
            case .cannotMoveAside: "cannot move file aside"
            case .invalidValue: "invalid stored value"
            case .database: "database error"
            }
        }
    }

    public var code: Code
    public var message: String
    public var underlying: (any Error)?

    public init(code: Code, message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    public var description: String {
        if let underlying {
            return "\(code): \(message) (\(underlying))"
        }
        return "\(code): \(message)"
    }
}

extension StorageError.Code {
    /// Lets `catch StorageError.Code.invalidValue` match a thrown ``StorageError`` by its code.
    public static func ~= (code: StorageError.Code, error: any Error) -> Bool {
        (error as? StorageError)?.code == code
    }
}
