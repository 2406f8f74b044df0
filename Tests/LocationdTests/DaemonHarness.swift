import CoreLocationDaemonProtocol
import CoreLocationGPSDTestSupport
import Foundation
import Synchronization
import Testing

/// A real locationd process on a temporary socket and database, and helpers for the test's clients.
///
/// Every wait here is `async` and holds no thread while it waits (`Polling`): the test process's pool has
/// two threads on a 2-core machine, and blocking waits in these suites stalled unrelated tests for minutes.
final class DaemonHarness: Sendable {
    static let products: URL = {
        let bundle = Bundle.main.bundleURL
        if FileManager.default.isExecutableFile(atPath: bundle.appendingPathComponent("locationd").path) { return bundle }
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        return root.appendingPathComponent(".build/debug")
    }()

    let directory: String
    var socket: String { directory + "/l.sock" }
    var database: String { directory + "/d.sqlite" }
    let process = Mutex<ChildProcess?>(nil)
    let log = Mutex(Data())

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("locationd-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    deinit {
        // Waited for before the directory goes: locationd unlinks its socket and checkpoints its WAL as it
        // exits, and a removal racing that left the directory behind. Bounded, as a deinit may block a
        // pool thread: SIGKILL after 5 s.
        if let process = process.withLock({ $0 }), !ChildProcess.kill(process, signal: SIGTERM, timeout: 5) {
            ChildProcess.kill(process)
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["CORELOCATION_DAEMON_SOCKET"] = socket
        environment["CORELOCATION_PROMPT"] = "never"
        environment["CORELOCATION_DATABASE"] = directory + "/app.sqlite"
        environment["CORELOCATION_DAEMON"] = "auto"
        // No locationd.conf of the person running the tests.
        environment["XDG_CONFIG_HOME"] = directory + "/config"
        environment.removeValue(forKey: "CORELOCATION_SIMULATE")
        return environment
    }

    /// Starts locationd and waits (bounded) until its socket answers.
    @discardableResult
    func start(
        _ arguments: [String] = ["--simulate", "48.8584,2.2945"], waitForSocket: Bool = true, extra: [String: String] = [:],
        hermetic: Bool = true, through wrapper: [String] = [], executable: URL? = nil
    ) async throws -> ChildProcess {
        let process = ChildProcess()
        // `executable`: another locationd than the built one (MultiCallBinaryTests: the multi-call binary's link).
        let locationd = executable ?? Self.products.appendingPathComponent("locationd")
        // No locationd.conf of the machine's (root's default is /etc/corelocation/locationd.conf)
        // unless the test names one.
        let config = arguments.contains("--config") || !hermetic ? [] : ["--config", "/dev/null"]
        let daemonArguments = ["--socket", socket, "--database", database] + config + arguments
        // A wrapper (its command, then locationd's path and arguments) that ends by exec-ing locationd.
        if let command = wrapper.first {
            process.executableURL = URL(fileURLWithPath: command)
            process.arguments = Array(wrapper.dropFirst()) + [locationd.path] + daemonArguments
        } else {
            process.executableURL = locationd
            process.arguments = daemonArguments
        }
        process.environment = environment.merging(extra) { $1 }
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = FileHandle.nullDevice
        PipeReader.drain(pipe.fileHandleForReading) { [weak self] data in
            self?.log.withLock { $0.append(data) }
        }
        try process.run()
        self.process.withLock { $0 = process }
        if waitForSocket {
            let socket = socket
            let answered = await Polling.until(timeout: 10, every: 0.05) {
                guard let connection = try? DaemonConnection.connect(path: socket, label: "harness", timeout: 1) else {
                    return false
                }
                connection.close()
                return true
            }
            if !answered { Issue.record("locationd did not answer: \(logText)") }
        }
        return process
    }

    var logText: String { log.withLock { String(decoding: $0, as: UTF8.self) } }

    /// Whether locationd's log comes to contain `text` within `timeout` seconds: its stderr is read
    /// on another thread, so a line it has written may not have arrived yet.
    func logContains(_ text: String, timeout: Double = 5) async -> Bool {
        await Polling.until(timeout: timeout) { logText.contains(text) }
    }

    func kill(signal: Int32 = SIGKILL) async {
        guard let process = process.withLock({ $0 }) else { return }
        Foundation.kill(process.processIdentifier, signal)
        _ = try? await Polling.onOwnThread { process.waitUntilExit() }
    }

    /// A raw socket to the daemon, for speaking bad protocol.
    func rawSocket() throws -> Int32 { try UnixSocket.connect(path: socket) }

    /// Reads frames until the daemon closes or `limit` frames arrived (bounded by a 10 s timeout).
    static func readMessages(_ fd: Int32, limit: Int = 100) -> (messages: [DaemonMessage], closed: Bool) {
        let (frames, closed) = readFrames(fd, limit: limit)
        return (frames.compactMap { try? DaemonProtocol.decode(DaemonMessage.self, from: $0) }, closed)
    }

    /// The frames the daemon writes, as they come, until it closes or `limit` arrived.
    static func readFrames(_ fd: Int32, limit: Int = 100) -> (frames: [[UInt8]], closed: Bool) {
        UnixSocket.setReceiveTimeout(fd, seconds: 10)
        var decoder = FrameDecoder()
        var frames: [[UInt8]] = []
        while frames.count < limit {
            while let frame = try? decoder.next() {
                frames.append(frame)
                if frames.count >= limit { return (frames, false) }
            }
            let bytes = UnixSocket.readSome(fd)
            if bytes.isEmpty { return (frames, true) }
            decoder.append(bytes)
        }
        return (frames, false)
    }

    static func hello(version: Int = DaemonProtocol.version) throws -> [UInt8] {
        try DaemonProtocol.frame(ClientMessage.hello(ClientHello(version: version, label: "test")))
    }

    /// Writes an Info.plist naming the app and its usage description; returns its path.
    func infoPlist(bundle: String, extra: [String: Any] = [:]) throws -> String {
        let path = directory + "/\(bundle)-Info.plist"
        let plist: [String: Any] = ["CFBundleIdentifier": bundle, "NSLocationWhenInUseUsageDescription": "Tests."]
            .merging(extra) { $1 }
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Runs a tool to completion with this daemon's environment.
    func run(
        _ tool: String, _ arguments: [String], extra: [String: String] = [:]
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        let process = ChildProcess()
        process.executableURL = tool.hasPrefix("/") ? URL(fileURLWithPath: tool) : Self.products.appendingPathComponent(tool)
        process.arguments = arguments
        process.environment = environment.merging(extra) { $1 }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Both pipes read to their ends at once (a tool that fills one while we wait on the other would
        // never finish), on threads of their own.
        let (stdout, stderr) = try await Polling.onOwnThread { () -> (Data, Data) in
            let errors = Mutex<Data?>(nil)
            Thread { errors.withLock { $0 = err.fileHandleForReading.readDataToEndOfFile() } }.start()
            let output = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let deadline = Date().addingTimeInterval(5)
            while errors.withLock({ $0 == nil }) && Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
            return (output, errors.withLock { $0 } ?? Data())
        }
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }
}

/// A running CoreLocationAppProbe whose lines are collected as they come.
final class RunningApp: Sendable {
    let process: ChildProcess
    let output: FileHandle
    let lines = Mutex<[String]>([])

    init(
        _ harness: DaemonHarness, _ arguments: [String], extra: [String: String] = [:], tool: String = "CoreLocationAppProbe"
    ) throws {
        process = ChildProcess()
        process.executableURL = tool.hasPrefix("/") ? URL(fileURLWithPath: tool) : DaemonHarness.products.appendingPathComponent(tool)
        process.arguments = arguments
        process.environment = harness.environment.merging(extra) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        output = pipe.fileHandleForReading
        let buffer = Mutex("")
        PipeReader.drain(pipe.fileHandleForReading) { [weak self] data in
            let text = String(decoding: data, as: UTF8.self)
            let complete = buffer.withLock { buffer -> [String] in
                buffer += text
                var parts = buffer.components(separatedBy: "\n")
                buffer = parts.removeLast()
                return parts
            }
            self?.lines.withLock { $0 += complete }
        }
        try process.run()
    }

    deinit { if process.isRunning { process.terminate() } }

    /// SIGTERM and wait (bounded: SIGKILL after 5 s) until the process is gone or a zombie, read
    /// from /proc.
    func stop() async {
        let pid = process.processIdentifier
        guard pid > 0 else { return }
        kill(pid, SIGTERM)
        if await !Self.waitGone(pid, timeout: 5) {
            kill(pid, SIGKILL)
            _ = await Self.waitGone(pid, timeout: 5)
        }
    }

    static func waitGone(_ pid: Int32, timeout: Double) async -> Bool {
        await Polling.until(timeout: timeout, every: 0.01) { ChildProcess.hasExited(pid) }
    }

    /// Waits (bounded) until `predicate` holds for the lines so far.
    @discardableResult
    func wait(timeout: Double = 15, _ predicate: ([String]) -> Bool) async -> Bool {
        await Polling.until(timeout: timeout) { lines.withLock { predicate($0) } }
    }

    func count(_ kind: String) -> Int { lines.withLock { $0.filter { $0.hasPrefix(kind + " ") }.count } }

    /// The monotonic times of lines of a kind.
    func times(_ kind: String) -> [Double] {
        lines.withLock { $0.filter { $0.hasPrefix(kind + " ") }.compactMap { Double($0.split(separator: " ")[1]) } }
    }
}

/// Reads a child's pipe to its end on a thread of its own. Not `readabilityHandler`: on Linux
/// libdispatch's event loop crashed (`_dispatch_event_loop_drain`, a bad pointer) when a watched
/// pipe reached its end while other tests' children exited, taking the whole test process down.
enum PipeReader {
    static func drain(_ handle: FileHandle, _ body: @escaping @Sendable (Data) -> Void) {
        let thread = Thread {
            // `availableData` blocks until the child writes or closes its end; empty means closed.
            while case let data = handle.availableData, !data.isEmpty { body(data) }
        }
        thread.start()
    }
}
