import Foundation

/// Why an NMEA input could not be used. Match on `code` (`catch let error as NMEASourceError where
/// error.code == .permissionDenied`).
public struct NMEASourceError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Value: Hashable, Sendable {
            case invalidInput, notFound, permissionDenied, cannotOpen, notATerminal, connectionFailed, readFailed
        }
        fileprivate let value: Value

        /// The input string or option is malformed.
        public static let invalidInput = Code(value: .invalidInput)
        /// The file or device does not exist.
        public static let notFound = Code(value: .notFound)
        /// The file or device exists but this user may not open it.
        public static let permissionDenied = Code(value: .permissionDenied)
        /// Opening failed for another reason (see `errno`).
        public static let cannotOpen = Code(value: .cannotOpen)
        /// A serial input that is not a terminal device (termios refused it).
        public static let notATerminal = Code(value: .notATerminal)
        /// The TCP connection could not be made.
        public static let connectionFailed = Code(value: .connectionFailed)
        /// Reading failed or the stream ended (device unplugged, connection closed).
        public static let readFailed = Code(value: .readFailed)

        public var description: String { "\(value)" }
    }

    public var code: Code
    public var message: String
    /// The path or address concerned.
    public var target: String
    /// The `errno` behind it, when there is one.
    public var errno: Int32?

    public init(code: Code, message: String, target: String, errno: Int32? = nil) {
        self.code = code
        self.message = message
        self.target = target
        self.errno = errno
    }

    public var description: String { message }

    /// The error for a failed `open(2)` of `path`, naming the permission a serial device needs.
    static func opening(_ path: String, errno code: Int32, isDevice: Bool) -> NMEASourceError {
        let reason = String(cString: strerror(code))
        switch code {
        case ENOENT, ENODEV, ENXIO:
            return NMEASourceError(
                code: .notFound,
                message: "cannot open \(path): \(reason)\(isDevice ? " (is the receiver plugged in?)" : "")",
                target: path, errno: code
            )
        case EACCES, EPERM:
            let hint =
                isDevice
                ? ": serial devices belong to the 'dialout' group (ls -l \(path)); add yourself with "
                    + "'sudo usermod -aG dialout $USER' and log in again"
                : ": the file is not readable by this user"
            return NMEASourceError(
                code: .permissionDenied, message: "permission denied opening \(path)\(hint)", target: path, errno: code
            )
        default:
            return NMEASourceError(
                code: .cannotOpen, message: "cannot open \(path): \(reason)", target: path, errno: code)
        }
    }
}

extension NMEASourceError.Code {
    public static func ~= (code: NMEASourceError.Code, error: any Error) -> Bool {
        (error as? NMEASourceError)?.code == code
    }
}
