import Logging

/// locationd's log handler: the standard-error stream handler, with every control character of a message and of
/// its metadata written as an escape (issue 37, item 9).
///
/// Clients choose much of what the daemon logs: a connection's `label`, an app's bundle identifier from its
/// Info.plist, region identifiers. A newline in any of them would start a line of the client's own making in the
/// journal ("… label=x\n<forged line>"). Escaping here, once, covers every call site, including ones added later.
struct EscapingLogHandler: LogHandler {
    var wrapped: StreamLogHandler

    init(label: String) {
        wrapped = StreamLogHandler.standardError(label: label)
    }

    var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { wrapped.metadata }
        set { wrapped.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { wrapped[metadataKey: key] }
        set { wrapped[metadataKey: key] = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { wrapped.metadataProvider }
        set { wrapped.metadataProvider = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        event.message = "\(LogText.escaped(event.message.description))"
        event.metadata = event.metadata.map(LogText.escaped)
        wrapped.log(event: event)
    }
}

/// Control characters as escapes, so that a logged text is one line and shows what it held.
enum LogText {
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0 == "\\" || needsEscape($0) }) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\\": result += "\\\\"
            case _ where needsEscape(scalar):
                result += "\\u{" + String(scalar.value, radix: 16) + "}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// C0 and C1 controls, DEL, and the Unicode line and paragraph separators (which some log viewers break at).
    /// A backslash is doubled as well, so that an escape in the log was made here and not typed by the client.
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
    }

    static func escaped(_ metadata: Logger.Metadata) -> Logger.Metadata {
        metadata.reduce(into: [:]) { result, entry in result[escaped(entry.key)] = escaped(entry.value) }
    }

    static func escaped(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .string(let text): .string(escaped(text))
        case .stringConvertible(let convertible): .string(escaped(convertible.description))
        case .array(let values): .array(values.map(escaped))
        case .dictionary(let values): .dictionary(escaped(values))
        }
    }
}
