import CoreLocationGPSDTestSupport
import Foundation
import Testing

/// The test runner's own launcher (`ChildProcess`), checked against what the kernel says.
@Suite struct ChildProcessTests {
    static func shell(_ script: String) -> ChildProcess {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        process.standardInput = FileHandle.nullDevice
        return process
    }

    /// The regression behind it: a child that closes the descriptors it inherited and keeps running
    /// (as `systemd-socket-activate` does) held Foundation's one reaping thread in `waitpid`, and no
    /// other child's exit was noticed until it ended. Here a second child's exit is seen while the
    /// first still runs.
    @Test func anExitIsSeenWhileAChildThatClosedItsDescriptorsRuns() async throws {
        let closer = ChildProcess()
        closer.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        // It lives until the test kills it (the defer): a loaded run slower than 30 s must not see it end first.
        closer.arguments = ["-c", "import os, time; os.closerange(3, 65536); time.sleep(600)"]
        try closer.run()
        defer { ChildProcess.kill(closer) }
        await Polling.pause(0.3)

        let quick = Self.shell("exit 7")
        try quick.run()
        #expect(await Polling.until(timeout: 10) { !quick.isRunning }, "the exit went unseen")
        #expect(closer.isRunning)
        #expect(quick.terminationStatus == 7)
        #expect(quick.terminationReason == .exit)
    }

    @Test func aChildStartsWithOnlyItsStandardDescriptors() async throws {
        // Descriptors this process holds open without close-on-exec, as Foundation's `Pipe` makes them.
        let held = Pipe()
        let output = Pipe()
        let listing = Self.shell("ls /proc/$$/fd")
        listing.standardOutput = output
        try listing.run()
        let text = await ChildProcess.firstLine(of: output.fileHandleForReading) ?? ""
        let reader = output.fileHandleForReading
        let rest = try await Polling.onOwnThread { reader.readDataToEndOfFile() }
        let descriptors = (text + String(decoding: rest, as: UTF8.self)).split(whereSeparator: \.isWhitespace)
        // The shell's 0, 1, 2 and the one `ls` reads the directory through (its own, 3 or above).
        #expect(descriptors.prefix(3) == ["0", "1", "2"], "\(descriptors)")
        #expect(descriptors.count <= 4, "\(descriptors), \(held.fileHandleForReading.fileDescriptor)")
        _ = await Polling.until(timeout: 10) { !listing.isRunning }
    }

    @Test func aSignalEndingTheChildIsItsStatus() async throws {
        let sleeper = Self.shell("exec sleep 30")
        try sleeper.run()
        #expect(sleeper.isRunning)
        #expect(ChildProcess.kill(sleeper, signal: SIGKILL, timeout: 10))
        #expect(sleeper.terminationReason == .uncaughtSignal)
        #expect(sleeper.terminationStatus == SIGKILL)
        // Reaped: no signal is sent to its pid again.
        #expect(!sleeper.signal(SIGKILL))
    }

    @Test func aMissingExecutableThrows() {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/nonexistent/tool")
        #expect(throws: (any Error).self) { try process.run() }
        #expect(!process.isRunning)
    }

    @Test func theWorkingDirectoryAndEnvironmentAreTheChilds() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = Pipe()
        let process = Self.shell("echo \"$(pwd) $GREETING\"")
        process.environment = ["GREETING": "hello", "PATH": "/usr/bin:/bin"]
        process.currentDirectoryURL = directory
        process.standardOutput = output
        try process.run()
        let line = await ChildProcess.firstLine(of: output.fileHandleForReading) ?? ""
        #expect(line == directory.resolvingSymlinksInPath().path + " hello\n")
    }
}
