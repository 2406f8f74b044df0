import CoreLocationGPSDTestSupport
import Foundation
import Synchronization
import Testing

/// A built executable of this package, found next to the test bundle.
enum Tool: String {
    case locationctl
    case probe = "CoreLocationProbe"
    case bundleProbe = "CoreLocationBundleProbe"

    /// The build products directory. Under `swift test` on Linux, `Bundle.main` is the test runner
    /// executable's directory, which is where SwiftPM puts the package's executables; otherwise the
    /// default `.build/debug` of the package that holds this file.
    static let productsDirectory: URL = {
        let bundle = Bundle.main.bundleURL
        if FileManager.default.isExecutableFile(atPath: bundle.appendingPathComponent(Tool.locationctl.rawValue).path) {
            return bundle
        }
        // #filePath is <package>/Tests/LocationctlTests/Support/Tool.swift.
        var packageRoot = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { packageRoot.deleteLastPathComponent() }
        return packageRoot.appendingPathComponent(".build/debug")
    }()

    var url: URL { Self.productsDirectory.appendingPathComponent(rawValue) }
}

/// What a finished subprocess left behind.
struct ToolRun: CustomStringConvertible {
    var status: Int32
    var stdout: String
    var stderr: String
    /// How long the process ran, in seconds of wall time.
    var duration: Double

    var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }

    var description: String { "exit \(status) after \(duration) s\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }
}

struct ToolTimedOut: Error, CustomStringConvertible {
    var tool: Tool
    var arguments: [String]
    var limit: Double
    /// From the start to the kill's reaping, taken on the child's reaping thread: the test's own wall
    /// time also counts how long its task waited for a cooperative thread in a loaded parallel run.
    var ranFor: Double
    var description: String { "\(tool.rawValue) \(arguments.joined(separator: " ")) ran for more than \(limit) s" }
}

extension Tool {
    /// The longest any tool may run before the test kills it and fails.
    static let timeLimit: Double = 60

    /// Runs the tool with exactly `environment` (nothing inherited) and no standard input.
    /// Throws `ToolTimedOut` after killing the process if it outlives `limit`.
    /// `executable` runs a copy of the tool instead of the built product.
    func run(
        _ arguments: [String], environment: [String: String], in directory: URL, limit: Double = Tool.timeLimit,
        executable: URL? = nil
    ) async throws -> ToolRun {
        let process = ChildProcess()
        process.executableURL = executable ?? url
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = directory
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice

        let exited = Mutex(false)
        let ended = Mutex<Date?>(nil)
        let timedOut = Mutex(false)
        let started = Date()
        async let stdout = Self.readAll(output.fileHandleForReading)
        async let stderr = Self.readAll(errors.fileHandleForReading)
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { finished in
                ended.withLock { $0 = Date() }
                exited.withLock { $0 = true }
                continuation.resume(returning: finished.terminationStatus)
            }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                // No child holds the write ends: close ours, or the readers (awaited before this throws)
                // would wait for an end of file for ever.
                try? output.fileHandleForWriting.close()
                try? errors.fileHandleForWriting.close()
                continuation.resume(throwing: error)
                return
            }
            let pid = process.processIdentifier
            // A thread of its own, not a dispatch timer: in a full parallel run the global queues were busy
            // enough that a 0.5 s limit was enforced after 313 s.
            Thread.detachNewThread {
                let deadline = Date().addingTimeInterval(limit)
                while Date() < deadline, !exited.withLock({ $0 }) { Thread.sleep(forTimeInterval: 0.05) }
                // A child that has exited and only waits to be reaped (a zombie) did not overrun: its
                // reaping thread may wait for a CPU on a loaded machine. Wait for the handler then
                // (bounded), rather than call that a timeout.
                let reaping = Date().addingTimeInterval(600)
                while Date() < reaping, !exited.withLock({ $0 }), ChildProcess.hasExited(pid) {
                    Thread.sleep(forTimeInterval: 0.05)
                }
                // Only while the termination handler has not run, so a reused pid is never hit
                // (short of the instant between the reaping and its handler).
                exited.withLock { hasExited in
                    guard !hasExited else { return }
                    timedOut.withLock { $0 = true }
                    kill(pid, SIGKILL)
                }
            }
        }
        // Process.run() closed the parent's copies of the write ends, so the reads end with the child.
        let run = ToolRun(
            status: status,
            stdout: String(decoding: await stdout, as: UTF8.self),
            stderr: String(decoding: await stderr, as: UTF8.self),
            duration: Date().timeIntervalSince(started)
        )
        // The readers use the pipes' raw descriptors: the pipes (closed when freed) must outlive the reads.
        withExtendedLifetime((output, errors, process)) {}
        if timedOut.withLock({ $0 }) {
            let ranFor = (ended.withLock { $0 } ?? Date()).timeIntervalSince(started)
            throw ToolTimedOut(tool: self, arguments: arguments, limit: limit, ranFor: ranFor)
        }
        return run
    }

    /// Reads a pipe to its end on a thread of its own, so neither the cooperative pool nor the dispatch
    /// queues are blocked. `read(2)` directly, retried on EINTR: `FileHandle.readToEnd()` behind `try?` once
    /// gave an empty stderr for a tool that had written to it.
    private static func readAll(_ handle: FileHandle) async -> Data {
        let descriptor = handle.fileDescriptor
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var data = Data()
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                    if count > 0 {
                        data.append(contentsOf: buffer[0..<count])
                    } else if count < 0 && errno == EINTR {
                        continue
                    } else {
                        break
                    }
                }
                continuation.resume(returning: data)
            }
        }
    }
}
