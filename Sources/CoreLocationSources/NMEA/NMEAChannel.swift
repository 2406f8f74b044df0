import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a live NMEA stream is read from.
enum NMEAEndpoint: Sendable, Hashable, CustomStringConvertible {
    case serial(path: String, baud: Int?)
    case tcp(host: String, port: Int)
    /// An already open descriptor (stdin, or a pipe in tests); not closed by the channel.
    case descriptor(Int32, label: String)

    var description: String {
        switch self {
        case .serial(let path, _): path
        case .tcp(let host, let port): "tcp://\(host):\(port)"
        case .descriptor(_, let label): label
        }
    }
}

/// An open, non-blocking byte stream.
struct NMEAChannel: Sendable {
    let fd: Int32
    let ownsDescriptor: Bool
    let isSerial: Bool

    /// Opens an endpoint. Serial devices are put in raw mode at `baud` (see `NMEASerialPort`).
    static func open(_ endpoint: NMEAEndpoint, baud: Int?) throws(NMEASourceError) -> NMEAChannel {
        switch endpoint {
        case .descriptor(let fd, _):
            setNonBlocking(fd)
            return NMEAChannel(fd: fd, ownsDescriptor: false, isSerial: false)
        case .serial(let path, _):
            let fd = Glibc.open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else { throw NMEASourceError.opening(path, errno: errno, isDevice: true) }
            do throws(NMEASourceError) {
                try NMEASerialPort.configure(fd, baud: baud ?? 9_600, path: path)
            } catch {
                _ = Glibc.close(fd)
                throw error
            }
            return NMEAChannel(fd: fd, ownsDescriptor: true, isSerial: true)
        case .tcp(let host, let port):
            let fd = try connect(host: host, port: port)
            setNonBlocking(fd)
            return NMEAChannel(fd: fd, ownsDescriptor: true, isSerial: false)
        }
    }

    func close() {
        if ownsDescriptor { _ = Glibc.close(fd) }
    }

    private static func setNonBlocking(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    }

    /// A blocking TCP connect to the first address of `host` that answers.
    private static func connect(host: String, port: Int) throws(NMEASourceError) -> Int32 {
        let target = "tcp://\(host):\(port)"
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            let reason = status == 0 ? "no address" : String(cString: gai_strerror(status))
            throw NMEASourceError(code: .connectionFailed, message: "cannot resolve \(host): \(reason)", target: target)
        }
        defer { freeaddrinfo(list) }
        var lastError: Int32 = 0
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            let fd = socket(
                info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue),
                info.pointee.ai_protocol)
            if fd >= 0 {
                if Glibc.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return fd }
                lastError = errno
                _ = Glibc.close(fd)
            } else {
                lastError = errno
            }
            entry = info.pointee.ai_next
        }
        throw NMEASourceError(
            code: .connectionFailed, message: "cannot connect to \(target): \(String(cString: strerror(lastError)))",
            target: target, errno: lastError
        )
    }
}

/// termios set-up of a serial receiver: raw 8N1, no flow control, receiver on, modem lines ignored.
enum NMEASerialPort {
    /// Configures `fd` (a terminal) for NMEA at `baud`.
    static func configure(_ fd: Int32, baud: Int, path: String) throws(NMEASourceError) {
        var options = termios()
        guard tcgetattr(fd, &options) == 0 else {
            let code = errno
            throw NMEASourceError(
                code: .notATerminal, message: "\(path) is not a serial device: \(String(cString: strerror(code)))",
                target: path, errno: code
            )
        }
        cfmakeraw(&options)
        options.c_cflag |= tcflag_t(CLOCAL | CREAD)
        options.c_cflag &= ~tcflag_t(CSTOPB | PARENB)
        #if os(Linux)
            options.c_cflag &= ~tcflag_t(CRTSCTS)
        #endif
        // VMIN 1, VTIME 0: a read returns as soon as a byte is there.
        withUnsafeMutableBytes(of: &options.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        let speed = speedConstant(baud)
        guard cfsetispeed(&options, speed) == 0, cfsetospeed(&options, speed) == 0,
            tcsetattr(fd, TCSANOW, &options) == 0
        else {
            let code = errno
            throw NMEASourceError(
                code: .cannotOpen, message: "cannot set \(path) to \(baud) baud: \(String(cString: strerror(code)))",
                target: path, errno: code
            )
        }
        _ = tcflush(fd, TCIFLUSH)
    }

    /// The termios speed constant of a baud rate (9600 for a rate termios does not know).
    static func speedConstant(_ baud: Int) -> speed_t {
        switch baud {
        case 4_800: speed_t(B4800)
        case 19_200: speed_t(B19200)
        case 38_400: speed_t(B38400)
        case 57_600: speed_t(B57600)
        case 115_200: speed_t(B115200)
        case 230_400: speed_t(B230400)
        case 460_800: speed_t(B460800)
        default: speed_t(B9600)
        }
    }

    /// The baud rate a termios speed constant stands for.
    static func baudRate(_ speed: speed_t) -> Int? {
        for rate in NMEAInput.supportedBaudRates where speedConstant(rate) == speed { return rate }
        return nil
    }
}
