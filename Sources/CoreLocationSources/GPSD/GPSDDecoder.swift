import Foundation
import Logging

/// Turns gpsd's byte stream into `GPSDMessage`s: splits lines, decodes each object envelope
/// first, and skips what it cannot use.
///
/// Lines that are not valid JSON (gpsd 3.22 emits some when HDT and GST sentences mix), objects
/// whose known fields have the wrong type, and overlong lines are counted in `invalidLines` and
/// dropped; the stream goes on. Unknown classes are logged at debug level and skipped.
public struct GPSDDecoder: Sendable {
    /// The longest line accepted, bytes. gpsd's biggest objects (POLL, SKY with 100+ satellites)
    /// stay well under this; anything longer is garbage or a different protocol.
    public static let maximumLineLength = 64 * 1024

    public private(set) var invalidLines = 0
    public private(set) var unknownClasses = 0
    private var pending: [UInt8] = []
    private var discardingOverlong = false
    private let logger: Logger

    public init(logger: Logger = Logger(label: "corelocation.gpsd")) {
        self.logger = logger
    }

    /// Feeds bytes as they arrive (any chunking) and returns the complete messages they finish.
    public mutating func feed(_ bytes: some Collection<UInt8>) -> [GPSDMessage] {
        var messages: [GPSDMessage] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if discardingOverlong {
                    discardingOverlong = false
                } else if let message = decode(line: pending) {
                    messages.append(message)
                }
                pending.removeAll(keepingCapacity: true)
            } else if !discardingOverlong {
                pending.append(byte)
                if pending.count > Self.maximumLineLength {
                    invalidLines += 1
                    logger.debug("Dropping an overlong line from gpsd", metadata: ["bytes": "\(pending.count)"])
                    pending.removeAll(keepingCapacity: true)
                    discardingOverlong = true
                }
            }
        }
        return messages
    }

    /// Forgets an unfinished line (the connection it came from is gone); the counters stay.
    public mutating func discardPartialLine() {
        pending.removeAll(keepingCapacity: true)
        discardingOverlong = false
    }

    /// Bytes received after the last newline (an unfinished line).
    public var leftover: Int { pending.count }

    /// Decodes one line (without its newline; a trailing CR is ignored). Blank lines are skipped
    /// silently; anything else that is not a gpsd object is counted.
    public mutating func decode(line: some Collection<UInt8>) -> GPSDMessage? {
        var bytes = Array(line)
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        if bytes.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { return nil }
        let data = Data(bytes)
        do {
            let message = try Self.decodeObject(data)
            if case .unknown(let className) = message {
                unknownClasses += 1
                logger.debug("Skipping a gpsd object of unknown class", metadata: ["class": "\(className)"])
            }
            return message
        } catch {
            invalidLines += 1
            logger.debug("Skipping a line from gpsd that is not a valid object", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// Decodes one JSON object; throws when it is not JSON or a known class has ill-typed fields.
    public static func decodeObject(_ data: Data) throws -> GPSDMessage {
        let decoder = JSONDecoder()
        let envelope = try decoder.decode(GPSDEnvelope.self, from: data)
        switch envelope.class {
        case "VERSION": return .version(try decoder.decode(GPSDVersion.self, from: data))
        case "WATCH": return .watch(try decoder.decode(GPSDWatch.self, from: data))
        case "DEVICES": return .devices(try decoder.decode(GPSDDevices.self, from: data))
        case "DEVICE": return .device(try decoder.decode(GPSDDevice.self, from: data))
        case "TPV": return .tpv(try decoder.decode(GPSDTPV.self, from: data))
        case "SKY": return .sky(try decoder.decode(GPSDSky.self, from: data))
        case "GST": return .gst(try decoder.decode(GPSDGST.self, from: data))
        case "ATT": return .att(try decoder.decode(GPSDATT.self, from: data))
        case "ERROR": return .error(try decoder.decode(GPSDErrorReport.self, from: data))
        case "POLL": return .poll(try decoder.decode(GPSDPoll.self, from: data))
        default: return .unknown(className: envelope.class)
        }
    }
}
