import Foundation

/// Constants and JSON coding of the locationd protocol (docs/locationd-protocol.md).
public enum DaemonProtocol {
    /// Bumped on any incompatible change; both sides say theirs in the hello. 2: the wire's own message
    /// types with a `"type"` in every object (decision 0068); 1 was Swift's synthesized coding of the
    /// engine's enums.
    public static let version = 2
    /// The largest payload a frame may carry (64 KiB).
    public static let maximumFrameLength = 65_536

    /// `$XDG_RUNTIME_DIR/corelocation/locationd.sock` for a user, `/run/corelocation/locationd.sock` for root.
    public static func defaultSocketPath(environment: [String: String], isRoot: Bool) -> String {
        if !isRoot, let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            return runtime + "/corelocation/locationd.sock"
        }
        return systemSocketPath
    }

    public static let systemSocketPath = "/run/corelocation/locationd.sock"

    public static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return Array(try encoder.encode(value))
    }

    public static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return try decoder.decode(type, from: Data(bytes))
    }

    /// The frame of `.event(sequence: nil, body: .client(client, .delivery(delivery)))` from the
    /// delivery's JSON encoded once (`DeliveryJSON.encode(delivery)`): one fix fanned out to many clients is
    /// encoded once, not once per client. The bytes are those `frame` writes (keys sorted), which
    /// `DeliveryJSONTests` and the daemon-frames fuzz target check.
    public static func deliveryFrame(client: UInt64, encodedDelivery: [UInt8]) -> [UInt8] {
        // Written into one array (not spliced from parts): this is on the way to a fix's first client. A
        // number of up to 15 digits is a small string, kept inline: nothing is allocated for it.
        let head: StaticString = #"{"body":{"client":"#
        let middle: StaticString = #","delivery":"#
        let tail: StaticString = #","type":"deliver"},"type":"event"}"#
        let number = String(client).utf8
        let length = head.utf8CodeUnitCount + number.count + middle.utf8CodeUnitCount + encodedDelivery.count
            + tail.utf8CodeUnitCount
        return FrameDecoder.frame(length: length) { frame in
            head.withUTF8Buffer { frame += $0 }
            frame += number
            middle.withUTF8Buffer { frame += $0 }
            frame += encodedDelivery
            tail.withUTF8Buffer { frame += $0 }
        }
    }

    /// The version a frame of protocol version 1 speaks, or nil when it is not one. Version 1 wrote an enum
    /// case as an object with one key and unlabelled values as `_0`: its hello was
    /// `{"hello":{"_0":{"version":1,…}}}` (the version it names), its error `{"error":{"_0":{…}}}` (1). A
    /// peer of that version is told which versions meet instead of "malformed".
    public static func version1(of frame: [UInt8]) -> Int? {
        guard let message = try? decode(Version1Message.self, from: frame) else { return nil }
        return message.hello?.payload.version ?? (message.error != nil ? 1 : nil)
    }

    /// `error` as a version-1 peer reads it (`{"error":{"_0":{…}}}`): how the daemon refuses a version-1 hello, so
    /// the old client shows the reason instead of "unreadable".
    public static func version1Frame(_ error: DaemonError) throws -> [UInt8] {
        try frame(["error": ["_0": error]])
    }

    /// A framed message ready to write.
    public static func frame<T: Encodable>(_ value: T) throws -> [UInt8] {
        FrameDecoder.frame(try encode(value))
    }
}

/// The two version-1 messages a version-2 peer recognises (`DaemonProtocol.version1(of:)`).
private struct Version1Message: Decodable {
    struct Payload: Decodable {
        var version: Int?
    }

    struct Case: Decodable {
        enum CodingKeys: String, CodingKey {
            case payload = "_0"
        }

        var payload: Payload
    }

    var hello: Case?
    var error: Case?
}
