import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Test support shared by GPSDIntegrationTests and LocationdTests: a real gpsd, loopback sockets.

/// Where Debian installs gpsd; the integration tests run only where it exists.
public let gpsdPath = ["/usr/sbin/gpsd", "/usr/local/sbin/gpsd", "/usr/bin/gpsd"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}

/// A real gpsd in the foreground, listening on a loopback port and reading an NMEA feed over TCP:
/// `gpsd -N -n -b -S PORT tcp://127.0.0.1:FEEDPORT`. `terminate()` ends it and waits; so does deinit.
public final class GPSDProcess {
    public let port: UInt16
    private let process = ChildProcess()
    /// gpsd's own log (`-D 3`), kept for diagnosis; removed by `terminate()`.
    public let logPath: String
    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    public init(port: UInt16, feedPort: UInt16) throws {
        guard let gpsdPath else { throw Failure(description: "gpsd is not installed") }
        self.port = port
        process.executableURL = URL(fileURLWithPath: gpsdPath)
        process.arguments = ["-N", "-n", "-b", "-S", String(port), "tcp://127.0.0.1:\(feedPort)"]
        process.standardOutput = FileHandle.nullDevice
        logPath =
            FileManager.default.temporaryDirectory.appendingPathComponent("gpsd-test-\(port)-\(UUID().uuidString).log")
            .path
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: logPath)
        process.arguments = ["-N", "-n", "-b", "-D", "3", "-S", String(port), "tcp://127.0.0.1:\(feedPort)"]
        try process.run()
    }

    /// Waits until gpsd accepts connections on its port (bounded).
    public func waitUntilListening(timeout: Double = 5) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            guard process.isRunning else {
                throw Failure(description: "gpsd exited with status \(process.terminationStatus)")
            }
            if canConnect(port: port) { return }
            usleep(10_000)
        }
        throw Failure(description: "gpsd did not listen on port \(port) within \(timeout) s")
    }

    /// SIGTERM, then SIGKILL after 0.5 s (gpsd 3.22 started from the test runner, whose mask blocks
    /// SIGTERM, does not always act on it promptly); returns once the process is gone.
    public func terminate() {
        defer { try? FileManager.default.removeItem(atPath: logPath) }
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(0.5)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    public var isRunning: Bool { process.isRunning }

    deinit { terminate() }
}

/// A port that was free a moment ago on 127.0.0.1 (the kernel's pick for a bound, closed socket).
public func freeLoopbackPort() throws -> UInt16 {
    let listener = try LoopbackSocket.listen()
    defer { Glibc.close(listener.fd) }
    return listener.port
}

public func canConnect(port: UInt16) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { Glibc.close(fd) }
    var address = LoopbackSocket.address(port: port)
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    } == 0
}

public enum LoopbackSocket {
    public struct Failure: Error { public var step: String }

    public static func address(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        return address
    }

    /// A listening socket on 127.0.0.1 (port 0: the kernel picks).
    public static func listen(port: UInt16 = 0) throws -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(step: "socket") }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = address(port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, Glibc.listen(fd, 8) == 0 else {
            Glibc.close(fd)
            throw Failure(step: "bind/listen")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }
}
