/// A JSON object key written where it is used: every name on the wire is a string literal in this module's
/// `Codable` code (docs/locationd-protocol.md, decision 0068), so renaming a Swift case or property never
/// changes the protocol.
struct WireKey: CodingKey, ExpressibleByStringLiteral {
    var stringValue: String
    var intValue: Int? { nil }

    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
    init(stringLiteral value: String) { stringValue = value }
}

typealias WireDecoding = KeyedDecodingContainer<WireKey>
typealias WireEncoding = KeyedEncodingContainer<WireKey>

extension KeyedDecodingContainer where Key == WireKey {
    /// The object's `"type"`, the discriminator of every message, request, reply, event and command.
    func type() throws -> String { try decode(String.self, forKey: "type") }

    func unknown(_ type: String, of what: String) -> DecodingError {
        DecodingError.dataCorruptedError(forKey: "type", in: self, debugDescription: "unknown \(what) type \"\(type)\"")
    }
}
