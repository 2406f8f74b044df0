import CoreLocationEngine
import Foundation

/// Constants and JSON coding of the locationd protocol (docs/locationd-protocol.md).
public enum DaemonProtocol {
    /// Bumped on any incompatible change; both sides say theirs in the hello.
    public static let version = 1
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

    /// The frame of `.event(sequence: nil, body: .action(.deliver(client, delivery)))` from the
    /// delivery's JSON encoded once (`encode(delivery)`): one fix fanned out to many clients is
    /// encoded once, not once per client. The bytes are those `frame` writes (keys sorted).
    public static func deliveryFrame(client: ClientID, encodedDelivery: [UInt8]) -> [UInt8] {
        // Written into one array (not spliced from parts): this is on the way to a fix's first client. A
        // number of up to 15 digits is a small string, kept inline: nothing is allocated for it.
        let head: StaticString = #"{"event":{"body":{"action":{"_0":{"deliver":{"_0":{"rawValue":"#
        let middle: StaticString = #"},"_1":"#
        let tail: StaticString = "}}}}}}"
        let number = String(client.rawValue).utf8
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

    /// A framed message ready to write.
    public static func frame<T: Encodable>(_ value: T) throws -> [UInt8] {
        FrameDecoder.frame(try encode(value))
    }
}
