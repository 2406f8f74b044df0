/// Why bytes are not a valid MaxMind DB where they were read: internal to the reader, which turns it into a
/// `NetworkSourceError` (`.databaseInvalid` at open, `.lookupFailed` in a look-up).
struct MaxMindFormatError: Error, Sendable, CustomStringConvertible {
    var reason: String
    /// Offset in the section being decoded, when there is one.
    var offset: Int?

    init(_ reason: String, at offset: Int? = nil) {
        self.reason = reason
        self.offset = offset
    }

    var description: String { offset.map { "\(reason) (offset \($0))" } ?? reason }
}
