import Synchronization
import AsyncHTTPClient
import CoreLocationGPSDTestSupport
import Foundation
import NIOCore

/// The receiving test server (Server/report_server.py) as a child process on a loopback port.
final class ReportServer {
    let process: ChildProcess
    let port: Int
    /// The store's directory: shared with the server `restart()` starts, so it goes with the last of them.
    let scratch: ScratchDirectory
    var store: String { scratch.path("store.jsonl") }
    let arguments: [String]

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Server/report_server.py").path

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// Starts the server (port 0: the kernel's choice) and waits for its `PORT n` line.
    static func start(
        _ arguments: [String] = [], port: Int = 0, scratch: ScratchDirectory? = nil
    ) async throws -> ReportServer {
        let scratch = try scratch ?? ScratchDirectory("reportsrv")
        let store = scratch.path("store.jsonl")
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, "--port", String(port), "--store", store] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.standardError
        try process.run()
        guard let text = await ChildProcess.firstLine(of: pipe.fileHandleForReading) else {
            throw Failure(description: "report_server.py exited before listening")
        }
        guard let number = text.split(separator: " ").last.flatMap({ Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
        else {
            // Killed and waited for: the store's directory goes as this throws.
            ChildProcess.kill(process)
            throw Failure(description: "report_server.py said \(text)")
        }
        return ReportServer(process: process, port: number, scratch: scratch, arguments: arguments)
    }

    private init(process: ChildProcess, port: Int, scratch: ScratchDirectory, arguments: [String]) {
        self.process = process
        self.port = port
        self.scratch = scratch
        self.arguments = arguments
    }

    /// Stops it (SIGKILL; it was started by this test) and waits for it.
    func stop() {
        ChildProcess.kill(process)
    }

    /// The same server again on the same port and store (a server restart).
    func restart() async throws -> ReportServer {
        stop()
        return try await Self.start(arguments, port: port, scratch: scratch)
    }

    var base: String { "127.0.0.1:\(port)" }

    func fault(_ json: String) async throws {
        var request = HTTPClientRequest(url: "http://\(base)/_control/fault")
        request.method = .POST
        request.body = .bytes(ByteBuffer(string: json))
        _ = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
    }

    struct Received {
        var stored: [[String: Any]]
        var requests: Int
        var duplicates: Int

        /// The stored messages (OwnTracks JSON or OsmAnd query), in arrival order.
        var messages: [[String: Any]] { stored.compactMap { $0["message"] as? [String: Any] } }
    }

    func received() async throws -> Received {
        let response = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: "http://\(base)/_control/received"), timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 24)
        guard let json = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any] else {
            throw Failure(description: "bad /_control/received")
        }
        return Received(
            stored: json["stored"] as? [[String: Any]] ?? [], requests: json["requests"] as? Int ?? -1,
            duplicates: json["duplicates"] as? Int ?? -1)
    }

    // Waited for (bounded), so the server no longer writes its store when the directory goes.
    deinit { stop() }
}

/// Records the backoff waits instead of sleeping.
final class SleepRecorder: Sendable {
    private let waits = Mutex<[Double]>([])
    var sleep: @Sendable (Double) async throws -> Void { { [self] delay in waits.withLock { $0.append(delay) } } }
    var recorded: [Double] { waits.withLock { $0 } }
}
