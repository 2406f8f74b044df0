import CoreLocationGPSDTestSupport
import Foundation

/// The reporter's receiving test server (Tests/CoreLocationReportingTests/Server/report_server.py) as a
/// child process on a loopback port chosen by the kernel.
final class ReceivingServer {
    let process = ChildProcess()
    let port: Int
    /// The store's directory, removed after deinit has killed the server that writes there.
    let scratch: ScratchDirectory
    var store: String { scratch.path("store.jsonl") }

    struct Failure: Error, CustomStringConvertible { var description: String }

    init(_ arguments: [String] = []) async throws {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { root.deleteLastPathComponent() }
        let script = root.appendingPathComponent("Tests/CoreLocationReportingTests/Server/report_server.py").path
        scratch = try ScratchDirectory("recv")
        let store = scratch.path("store.jsonl")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, "--port", "0", "--store", store] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        guard let line = await ChildProcess.firstLine(of: pipe.fileHandleForReading) else {
            throw Failure(description: "report_server.py exited before listening")
        }
        let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let number = text.split(separator: " ").last.flatMap({ Int($0) }) else {
            ChildProcess.kill(process)
            throw Failure(description: "report_server.py said \(text)")
        }
        port = number
    }

    /// The records stored so far (the store file: one JSON object per line).
    func stored() throws -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: store, encoding: .utf8) else { return [] }
        return try text.split(separator: "\n").map {
            guard let object = try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] else {
                throw Failure(description: "bad store line \($0)")
            }
            return object
        }
    }

    func stop() {
        ChildProcess.kill(process)
    }

    deinit { stop() }
}

/// A loopback port nobody listens on (bound, then closed).
func closedPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
    }
    guard bound else { throw ReceivingServer.Failure(description: "cannot bind a loopback port") }
    return Int(UInt16(bigEndian: address.sin_port))
}
