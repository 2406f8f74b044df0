/// Why a line was dropped.
public enum NMEAFailure: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Does not start with `$` (or `!`): noise, a comment line, a partial line after a resync.
    case notASentence
    /// Bytes outside printable ASCII: binary garbage, or a serial line at the wrong baud rate.
    case nonPrintable
    /// No `*hh` at the end.
    case missingChecksum
    /// The `*hh` does not match the XOR of the body.
    case badChecksum
    /// Fewer fields than the sentence type requires, or an address too short.
    case truncated
    /// A field that is not a number where one is required, or out of its range.
    case invalidField
    /// Longer than the line splitter's bound.
    case overlong

    public var description: String {
        switch self {
        case .notASentence: "not a sentence"
        case .nonPrintable: "non-printable bytes"
        case .missingChecksum: "missing checksum"
        case .badChecksum: "bad checksum"
        case .truncated: "truncated"
        case .invalidField: "invalid field"
        case .overlong: "overlong line"
        }
    }
}

/// Counters of a stream: good sentences, sentences of types we do not use, and drops by reason.
public struct NMEAStatistics: Sendable, Hashable {
    /// Sentences decoded and used.
    public var decoded = 0
    /// Well-formed sentences (checksum right) of types not decoded: proprietary `$P…`, AIS, depth…
    public var ignored = 0
    // One counter per `NMEAFailure` case, inline so that counting never allocates.
    private var notASentence = 0
    private var nonPrintable = 0
    private var missingChecksum = 0
    private var badChecksum = 0
    private var truncated = 0
    private var invalidField = 0
    private var overlong = 0

    public init() {}

    public subscript(failure: NMEAFailure) -> Int {
        get {
            switch failure {
            case .notASentence: notASentence
            case .nonPrintable: nonPrintable
            case .missingChecksum: missingChecksum
            case .badChecksum: badChecksum
            case .truncated: truncated
            case .invalidField: invalidField
            case .overlong: overlong
            }
        }
        set {
            switch failure {
            case .notASentence: notASentence = newValue
            case .nonPrintable: nonPrintable = newValue
            case .missingChecksum: missingChecksum = newValue
            case .badChecksum: badChecksum = newValue
            case .truncated: truncated = newValue
            case .invalidField: invalidField = newValue
            case .overlong: overlong = newValue
            }
        }
    }

    /// All lines dropped, every reason together.
    public var dropped: Int {
        notASentence + nonPrintable + missingChecksum + badChecksum + truncated + invalidField + overlong
    }

    mutating func record(_ failure: NMEAFailure) { self[failure] += 1 }
}
