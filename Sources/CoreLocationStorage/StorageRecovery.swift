/// What happened when a database file could not be used as found.
public struct StorageRecovery: Sendable, Hashable {
    public enum Reason: String, Sendable, Hashable, CustomStringConvertible {
        /// Not an SQLite file, or one that fails SQLite's integrity check.
        case corrupt
        /// A valid SQLite database that belongs to some other program.
        case foreign
        /// Our database, migrated by a newer version of this library than the running one.
        case newerSchema = "newer"

        public var description: String { rawValue }
    }

    public var reason: Reason
    /// Where the database was expected (and where the fresh one now is).
    public var originalPath: String
    /// Where the file found there now is, untouched.
    public var movedAsidePath: String

    public init(reason: Reason, originalPath: String, movedAsidePath: String) {
        self.reason = reason
        self.originalPath = originalPath
        self.movedAsidePath = movedAsidePath
    }
}
