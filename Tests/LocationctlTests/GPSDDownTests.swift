import CoreLocationGPSDTestSupport
import Foundation
import Synchronization
import Testing

/// Issue 20 item 4: with gpsd not running, `track` says why before anything else, as `cgps` does.
@Suite struct GPSDDownTests {
    /// Regression: `track --source gpsd://127.0.0.1:1` said only "no fix for a while; still trying".
    /// Nothing listens on TCP port 1 (tcpmux is never run), so the connection is refused at once.
    @Test func connectionRefusedIsSaidFirst() async throws {
        let sandbox = try Sandbox()
        let process = ChildProcess()
        process.executableURL = Tool.locationctl.url
        process.arguments = ["track", "--source", "gpsd://127.0.0.1:1"]
        process.environment = sandbox.environment.merging(["CORELOCATION_DEFAULT_POLICY": "when-in-use"]) { $1 }
        process.currentDirectoryURL = sandbox.directory
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        let exited = Mutex(false)
        process.terminationHandler = { _ in exited.withLock { $0 = true } }
        try process.run()
        let pid = process.processIdentifier
        // The tool retries for ever; it is stopped once it has said why, or after 20 s at most.
        @Sendable func stop() {
            exited.withLock { hasExited in if !hasExited { kill(pid, SIGKILL) } }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + 20) { stop() }
        let wanted = "connection refused at 127.0.0.1:1"
        // Read on a thread of its own (up to 20 s): not on one of the test process's two pool threads.
        let text = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var text = ""
                while !text.contains("retrying every") || !text.contains(wanted) {
                    let chunk = errors.fileHandleForReading.availableData
                    if chunk.isEmpty { break }  // the tool ended (or was stopped)
                    text += String(decoding: chunk, as: UTF8.self)
                }
                stop()
                process.waitUntilExit()
                continuation.resume(returning: text)
            }
        }
        #expect(text.contains(wanted), "stderr: \(text)")
        #expect(text.contains("retrying every"), "stderr: \(text)")
        if let why = text.range(of: wanted), let vague = text.range(of: "no fix") {
            #expect(why.lowerBound < vague.lowerBound, "stderr: \(text)")
        }
    }
}
