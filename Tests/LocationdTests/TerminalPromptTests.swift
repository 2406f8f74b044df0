import CoreLocationGPSDTestSupport
import Foundation
import Testing

/// An app in a terminal with no agent registered asks in its own terminal (issue 10), through the daemon
/// and in-process alike: a real pseudo-terminal (Python's `pty.fork`, which makes it the child's
/// controlling terminal, so `/dev/tty` opens), the prompt read from it and the answer typed into it.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs python3"))
struct TerminalPromptTests {
    /// Runs `argv` on a new pseudo-terminal; types `answer` after the first "Choice:"; prints everything the
    /// terminal showed, and exits with the child's status.
    static let driver = #"""
        import os, pty, select, sys, time
        answer, argv = sys.argv[1], sys.argv[2:]
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(argv[0], argv)
        seen, answered, deadline = b"", False, time.time() + 40
        while time.time() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.2)
            if not ready:
                continue
            try:
                data = os.read(fd, 4096)
            except OSError:
                break  # the child closed the terminal (EIO)
            if not data:
                break
            seen += data
            if not answered and b"Choice:" in seen:
                os.write(fd, (answer + "\n").encode())
                answered = True
        _, status = os.waitpid(pid, 0)
        sys.stdout.write(seen.decode("utf-8", "replace"))
        sys.exit(os.waitstatus_to_exitcode(status))
        """#

    /// The prompt names the app by its executable (the plist here has no CFBundleDisplayName or CFBundleName).
    static let question = "Allow “CoreLocationProbe” to use your location?"

    /// CoreLocationProbe on a terminal, asking for when-in-use and one location.
    func probeOnATerminal(
        _ harness: DaemonHarness, bundle: String, answer: String, extra: [String: String],
        command: [String] = ["CoreLocationProbe", "runloop", "20"]
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        let plist = try harness.infoPlist(bundle: bundle)
        let tool = DaemonHarness.products.appendingPathComponent(command[0]).path
        // The harness turns prompts off for every other test; this one is about them.
        let environment = ["CORELOCATION_INFO_PLIST": plist, "CORELOCATION_PROMPT": "terminal"].merging(extra) { $1 }
        return try await harness.run(
            "/usr/bin/python3", ["-c", Self.driver, answer, tool] + command.dropFirst(), extra: environment)
    }

    /// Through the daemon an app does not answer its own prompt (issue 37, decision 0085): the terminal it offers
    /// is its own process, which could answer for itself. With no agent the daemon's default policy decides (here
    /// deny). On main the app asked in its terminal and its own answer was stored.
    @Test func throughTheDaemonAnAppDoesNotAnswerItsOwnPrompt() async throws {
        let harness = try DaemonHarness()
        try await harness.start(["--simulate", "48.8584,2.2945"], extra: ["CORELOCATION_DEFAULT_POLICY": "deny"])
        let run = try await probeOnATerminal(harness, bundle: "org.example.terminal", answer: "2", extra: [:])
        #expect(!run.stdout.contains(Self.question), "\(run)")
        #expect(!run.stdout.contains("location 48.858400 2.294500"), "\(run)")
        #expect(run.status == 4, "kCLErrorDenied: \(run)")
        let status = try await harness.run("locationctl", ["authorize", "--list"])
        #expect(!status.stdout.contains("org.example.terminal  whenInUse"), "\(status)")
    }

    /// locationctl, the Settings app, still asks in its terminal through the daemon: Don't Allow typed there denies.
    @Test func throughTheDaemonLocationctlAsksInItsTerminal() async throws {
        let harness = try DaemonHarness()
        try await harness.start(["--simulate", "48.8584,2.2945"])
        let run = try await probeOnATerminal(
            harness, bundle: "org.example.unused", answer: "3", extra: [:], command: ["locationctl", "locate"])
        #expect(run.stdout.contains("Allow “locationctl” to use your location?"), "\(run)")
        #expect(!run.stdout.contains("48.8584"), "\(run)")
        #expect(run.status != 0, "\(run)")
    }

    @Test func inProcessTheAppAsksInItsTerminalToo() async throws {
        let harness = try DaemonHarness()  // not started: CORELOCATION_DAEMON=off, the in-process engine
        let run = try await probeOnATerminal(
            harness, bundle: "org.example.inprocess", answer: "2",
            extra: ["CORELOCATION_DAEMON": "off", "CORELOCATION_SIMULATE": "48.8584,2.2945",
                    "CORELOCATION_DEFAULT_POLICY": "deny"])
        #expect(run.stdout.contains(Self.question), "\(run)")
        #expect(run.stdout.contains("location 48.858400 2.294500"), "\(run)")
        #expect(run.status == 0, "\(run)")
    }
}
